/**
 * Command-line options of the bench scripts (`benchArgs`) and of the diagnostics that measure a saved
 * demo model (`modelBenchArgs`: `bench:testtime-headroom`, `bench:rehearser-misses`,
 * `bench:refusal-recall`): `--name value` pairs and flags; bad input exits 2 with a message before
 * any worker starts.
 */
import { existsSync } from "node:fs";
import { DEMO_REHEARSAL_PROMPTS, demoRehearsalPrompt, FULL_PLAN } from "../src/demo/layout.js";

export function benchArgs(argv: readonly string[]) {
  const opt = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const fail = (message: string): never => {
    process.stderr.write(`${message}\n`);
    process.exit(2);
  };
  const int = (name: string, dflt: number, min: number): number => {
    const v = Number(opt(name) ?? dflt);
    return Number.isInteger(v) && v >= min ? v : fail(`--${name} must be an integer ≥ ${min}`);
  };
  return { opt, fail, int, seed: int("seed", 0, 0), json: argv.includes("--json") };
}

export function modelBenchArgs(argv: readonly string[]) {
  const args = benchArgs(argv);
  const model = args.opt("model") ?? args.fail("--model DIR is required (a saved demo model directory)");
  if (!existsSync(`${model}/config.json`))
    args.fail(`--model ${model}: no config.json there (not a saved model)`);
  // A saved demo model is rehearsed with the prompt it was trained with: the demo's own by default
  // (`compact-related` since recipe v17), `--rehearsal-prompt compact` for a v16 model.
  const prompt = args.opt("rehearsal-prompt") ?? demoRehearsalPrompt(FULL_PLAN);
  const rehearsalPrompt =
    DEMO_REHEARSAL_PROMPTS.find((p) => p === prompt) ??
    args.fail(
      `--rehearsal-prompt must be ${DEMO_REHEARSAL_PROMPTS.join(" or ")} (the demo's prompts), got "${prompt}"`,
    );
  return { ...args, model, rehearsalPrompt };
}
