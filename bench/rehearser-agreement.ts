/**
 * Diagnostic: do two demo models rehearse the same world? (issue 11: `envace` and `simulator`)
 *
 *   npm run bench:rehearser-agreement -- --model DIR --against DIR [--seed 0] [--max N] [--json]
 *
 * Both models rehearse the seed's unseen recorded calls (the demo's `fidelity_unseen` probes: the
 * env-less evaluation tasks' calls whose answers no prompt shows), greedily with the demo's prompt,
 * one worker at a time. Printed: each model's fidelity, how many answers are alike, and where they
 * differ, which model is right. Typical use: `--model <envace arm checkpoint> --against <the SFT
 * checkpoint it started from>` (the `simulator` arm's frozen rehearser).
 */
import { existsSync } from "node:fs";
import { buildDemoData } from "../src/demo/data.js";
import { probeFidelity, recordedProbes, type ScoredProbe } from "../src/demo/fidelity-probes.js";
import { FULL_PLAN } from "../src/demo/layout.js";
import { rehearserAgreement } from "../src/demo/rehearser-agreement.js";
import { startWorker } from "../src/engines/worker-supervisor.js";
import { modelBenchArgs } from "./model-args.js";

const args = modelBenchArgs(process.argv.slice(2));
const { int, model, seed, json, rehearsalPrompt: variant } = args;
const against = args.opt("against") ?? args.fail("--against DIR is required (the model to compare with)");
if (!existsSync(`${against}/config.json`))
  args.fail(`--against ${against}: no config.json there (not a saved model)`);
const max = int("max", Number.MAX_SAFE_INTEGER, 1);

const data = buildDemoData(FULL_PLAN, seed);
const probes = recordedProbes(data.eval.envless);

async function rehearse(dir: string): Promise<ScoredProbe[]> {
  const worker = await startWorker({ model: dir, port: 0 });
  try {
    return await probeFidelity(worker.client.chatModel(), probes, {
      max,
      concurrency: FULL_PLAN.concurrency,
      unseenOnly: true,
      variant,
    });
  } finally {
    await worker.stop();
  }
}

const started = Date.now();
const a = await rehearse(model);
const b = await rehearse(against);
const agreement = rehearserAgreement(a, b);
const fid = (s: ScoredProbe[]) => s.filter((p) => p.score.exact).length / Math.max(1, s.length);
const out = {
  model,
  against,
  seed,
  rehearsal_prompt: variant,
  minutes: (Date.now() - started) / 60000,
  fidelity: { model: fid(a), against: fid(b) },
  ...agreement,
};
if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
else {
  const pct = (n: number) => `${((100 * n) / Math.max(1, agreement.probes)).toFixed(1)}%`;
  const share = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(`unseen recorded calls ${agreement.probes} (seed ${seed}, ${out.minutes.toFixed(1)} min)`);
  console.log(`  fidelity: --model ${share(out.fidelity.model)}, --against ${share(out.fidelity.against)}`);
  console.log(
    `  same answer ${agreement.same} (${pct(agreement.same)}), of them right ${agreement.sameRight}`,
  );
  console.log(
    `  different ${agreement.probes - agreement.same}: only --model right ${agreement.onlyFirstRight}, ` +
      `only --against right ${agreement.onlySecondRight}, neither ${agreement.neitherRight}`,
  );
}
