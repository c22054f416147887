import cliProgress from "cli-progress";
import { Command, InvalidArgumentError, Option } from "commander";
import { join } from "node:path";
import { isEnvaceError } from "../../core/errors.js";
import { ensureWorkerEnv } from "../../engines/worker-env.js";
import { armSpecs, type ArmName } from "../../demo/arms.js";
import { COPY_CHECK_MIN } from "../../demo/copy-check.js";
import { runDemo, type DemoEvent } from "../../demo/pipeline.js";
import { DEMO_REHEARSAL_PROMPTS, demoRehearsalPrompt, FULL_PLAN, QUICK_PLAN } from "../../demo/layout.js";
import { resultsMarkdown } from "../../report/markdown.js";
import { outputDirProblem } from "../output-dir.js";

interface DemoFlags {
  quick?: boolean;
  seed: number;
  seeds: number;
  jobs: number;
  out?: string;
  cache: string;
  arms?: string;
  testtime: boolean;
  sftOnly?: boolean;
  rehearsalPrompt?: string;
  rlSteps?: number;
  json?: boolean;
}

const EXPLAIN = `
What the table means: every arm starts from the same SFT model and gets the same RL budget.
Only the "shop" environment exists during training; "bank" and "calendar" exist only as recorded
traces; "library"'s tasks are never seen in training (its tool names are, in renamed logs of
the other domains, so that transfer is possible at all). Success is measured afterwards in the REAL
environments (all checklist standards met), mean ± 95% CI. "env calls in training" is how many
real tool calls each arm needed to learn (0 for world rehearsal and the frozen simulator).
Fidelity is how often the model's rehearsed tool response equals the real one; "rehearsed-world
success" beside real success shows whether actor and rehearser co-adapted to an easier world.
`;

const int = (name: string, min: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
  return n;
};

function timestamp(): string {
  return new Date().toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 13);
}

/** `envace demo`: the EnvACE comparison on the built-in tiny model and toolworld domains. */
export function register(program: Command): void {
  const names = armSpecs(0).map((a) => a.name);
  program
    .command("demo")
    .description(
      "Run the whole method on a laptop CPU: tiny model, SFT on recorded traces, RL arms (sft, real, " +
        "simulator, envace, envace_anchored, real_all), evaluation in the real environments, report.",
    )
    .option(
      "--quick",
      "the same pipeline on far fewer tasks and steps (CI, a first look; ~3 min alone on 2 cores)",
    )
    .option("--seed <n>", "base seed of task generation and training", int("--seed", 0), 0)
    .option("--seeds <n>", "number of seeds (seed, seed+1, …); CIs pool over seeds", int("--seeds", 1), 1)
    .option(
      "--jobs <n>",
      "seeds run side by side, results in seed order (each seed holds its own SFT run and workers, " +
        "up to ~2.3 GB on the tiny model with two arms at a time; more jobs than cores mostly share " +
        "them: RESULTS.md has measured times)",
      int("--jobs", 1),
      1,
    )
    .option(
      "--out <dir>",
      "run directory (default runs/demo-<timestamp>); a rerun with the same directory reuses each arm " +
        "it finished with the same code, plan, seed and SFT checkpoint (arm-result.json) and runs the rest",
    )
    .option("--cache <dir>", "where SFT checkpoints are cached across runs", "runs/cache")
    .addOption(new Option("--arms <list>", `comma-separated subset of: ${names.join(", ")}`))
    .option("--no-testtime", "skip the test-time rehearsal rows")
    .option(
      "--sft-only",
      "only SFT and its gate on each seed (with --seeds N: how many of N seeds pass; no RL arms, so " +
        "--arms and --rl-steps are refused beside it). " +
        "An SFT run whose far-copy check on held-back logs fails (write calls that do not copy the " +
        "request's day, amount or target; the replies' copy rate is reported) is trained again, up to " +
        `${FULL_PLAN.sftAttempts ?? 1} runs a seed (--quick: ${QUICK_PLAN.sftAttempts ?? 1})`,
    )
    .addOption(
      new Option(
        "--rehearsal-prompt <variant>",
        "the rehearsal prompt of SFT, RL, evaluation and test-time rows: compact-related (recipe v17) " +
          "shows the rehearser the call, its tool's logs and the conversation's earlier calls on the " +
          "same values; compact (recipe v16) leaves those calls out. Another prompt means other SFT " +
          "data: its own cache key",
      )
        .choices(DEMO_REHEARSAL_PROMPTS)
        .default(demoRehearsalPrompt(FULL_PLAN)),
    )
    .addOption(
      new Option(
        "--rl-steps <n>",
        `RL steps of each RL arm (default ${FULL_PLAN.rl.steps}, --quick ${QUICK_PLAN.rl.steps}); every arm ` +
          "gets the same budget, from the same cached SFT checkpoint. An arm's time grows about in " +
          "proportion (20 steps ~2.6 min alone on 2 cores; 60 steps 7–9 min with another arm beside " +
          "it); RESULTS.md has what 60 steps measured",
      )
        .argParser(int("--rl-steps", 1))
        // --sft-only trains no RL arm: a budget for none is a mistake to say, not to ignore
        .conflicts("sftOnly"),
    )
    .option("--json", "print one results object on stdout (progress stays on stderr)")
    .action(async (flags: DemoFlags) => {
      if (flags.sftOnly && flags.arms !== undefined) {
        // --sft-only runs SFT alone on every seed: an arm list would be silently dropped
        process.stderr.write("envace demo: --sft-only runs no RL arm; leave out --arms or --sft-only\n");
        process.exit(2);
      }
      // Blank entries ("sft,", a doubled comma) are ignored; a list that names no arm is refused
      // rather than run as SFT alone with an empty table.
      const listed = flags.arms
        ?.split(",")
        .map((s) => s.trim())
        .filter((s) => s !== "");
      const isArm = (a: string): a is ArmName => (names as readonly string[]).includes(a);
      const arms = listed?.filter(isArm);
      const unknown = listed?.filter((a) => !isArm(a)) ?? [];
      const refusal =
        unknown.length > 0
          ? `unknown arm(s) ${unknown.join(", ")}`
          : arms?.length === 0
            ? "--arms names no arm"
            : undefined;
      if (refusal) {
        process.stderr.write(`envace demo: ${refusal}; choose from ${names.join(", ")}\n`);
        process.exit(2);
      }
      const out = flags.out ?? join("runs", `demo-${timestamp()}`);
      const badDir = outputDirProblem("--out", out) ?? outputDirProblem("--cache", flags.cache);
      if (badDir) {
        process.stderr.write(`envace demo: ${badDir}\n`);
        process.exit(2);
      }
      await ensureWorkerEnv({ quiet: true });
      const progress = progressRenderer();
      let results;
      let failure: unknown;
      try {
        results = await runDemo(
          {
            quick: flags.quick === true,
            seed: flags.seed,
            seeds: flags.seeds,
            jobs: flags.jobs,
            out,
            cacheDir: flags.cache,
            ...(arms ? { arms } : {}),
            skipTestTime: !flags.testtime,
            sftOnly: flags.sftOnly === true,
            ...(flags.rehearsalPrompt === "compact" ? { plan: { rehearsalPrompt: "compact" as const } } : {}),
            ...(flags.rlSteps !== undefined ? { rlSteps: flags.rlSteps } : {}),
          },
          progress.onEvent,
        );
      } catch (e) {
        failure = e;
      } finally {
        progress.stop();
      }
      if (failure !== undefined || results === undefined) {
        if (isEnvaceError(failure, "ARMS_FAILED"))
          process.stderr.write(
            `envace demo: the finished arms are kept in ${out}; run the same command with --out ${out} ` +
              `to redo only what failed or never ran\n`,
          );
        throw failure;
      }
      if (flags.json) process.stdout.write(JSON.stringify(results) + "\n");
      else {
        process.stdout.write("\n" + resultsMarkdown(results) + EXPLAIN);
        process.stdout.write(`\nReport: ${results.report}\n`);
      }
      if (flags.json) process.stderr.write(`report: ${results.report}\n`);
    });
}

const label = (seed: number, stage: string) => `seed ${seed} ${stage}`.padEnd(24);

/** One progress bar per stage (SFT, each arm) of each seed, on stderr. */
function progressRenderer(): { onEvent: (e: DemoEvent) => void; stop: () => void } {
  // Bars on a terminal; plain lines when stderr is a log file (CI), where bars would be noise.
  const tty = process.stderr.isTTY === true;
  const multi = tty
    ? new cliProgress.MultiBar(
        {
          stream: process.stderr,
          format: "{label} |{bar}| {value}/{total} {status}",
          hideCursor: false,
          clearOnComplete: false,
        },
        cliProgress.Presets.shades_classic,
      )
    : undefined;
  const log = (s: string) => {
    if (multi) multi.log(s + "\n");
    else process.stderr.write(s + "\n");
  };
  // One bar per seed's SFT run and per arm: with --jobs several seeds train at once, and with the
  // plan's armJobs several arms of a seed.
  const bars = new Map<string, cliProgress.SingleBar>();
  const stopBar = (key: string) => {
    bars.get(key)?.stop();
    bars.delete(key);
  };
  const onEvent = (e: DemoEvent) => {
    const key = "arm" in e ? `${e.seed} arm ${e.arm}` : `${e.seed} sft`;
    const bar = bars.get(key);
    switch (e.kind) {
      case "stage":
        log(`[seed ${e.seed}] ${e.stage}`);
        break;
      case "sft":
        if (e.progress.phase === "train" && e.progress.steps) {
          const sftBar =
            bar ?? multi?.create(e.progress.steps, 0, { label: label(e.seed, "sft"), status: "" });
          if (sftBar) bars.set(key, sftBar);
          sftBar?.update(e.progress.step ?? 0, { status: `loss ${e.progress.loss?.toFixed(3) ?? "-"}` });
          if (!tty && e.progress.step && e.progress.step % 25 === 0)
            log(
              `[seed ${e.seed}] sft step ${e.progress.step}/${e.progress.steps} loss ${e.progress.loss?.toFixed(3)}`,
            );
        } else if (e.cached !== undefined) {
          stopBar(key);
          log(e.cached ? `[seed ${e.seed}] SFT checkpoint reused from cache` : `[seed ${e.seed}] SFT done`);
        } else if (e.progress.phase === "check" && e.progress.check) {
          const c = e.progress.check;
          stopBar(key);
          const pct = (t: { right: number; total: number }) => `${t.right}/${t.total}`;
          log(
            `[seed ${e.seed}] SFT run ${(e.progress.attempt ?? 0) + 1}: far-copy check on held-back logs ` +
              `write ${pct(c.write)}, reply ${pct(c.reply)} — ${c.passed ? "passed" : "NOT met"}` +
              `${c.replyMet ? "" : ` (reply copy under ${100 * COPY_CHECK_MIN.reply}%: reported; SFT trains again on write copy only)`}`,
          );
        } else
          log(
            `[seed ${e.seed}] sft: ${e.progress.phase}${e.progress.attempt ? ` (run ${e.progress.attempt + 1})` : ""}`,
          );
        break;
      case "gate":
        log(
          `[seed ${e.seed}] SFT gate: first-call copy ${(100 * e.firstCallCopy).toFixed(1)}%, write-call copy ${(100 * e.writeCallCopy).toFixed(1)}%, fidelity on unseen calls ${(100 * e.fidelityUnseen).toFixed(1)}% (recorded, answers in prompt: ${(100 * e.fidelity).toFixed(1)}%)` +
            (e.passed ? " — passed" : " — NOT MET (RL on this model is mostly noise)"),
        );
        break;
      case "arm-start":
        if (e.steps > 0 && multi)
          bars.set(key, multi.create(e.steps, 0, { label: label(e.seed, e.arm), status: "" }));
        log(`[seed ${e.seed}] arm ${e.arm}`);
        break;
      case "arm-episodes":
        bar?.update({ status: `episodes ${e.done}/${e.total}` });
        break;
      case "arm-step": {
        const m = e.metrics;
        bar?.update(m.step, {
          status: `reward ${m.reward_mean?.toFixed(2) ?? "-"} env calls ${m.env_calls}`,
        });
        if (!tty)
          log(
            `[seed ${e.seed}] ${e.arm} step ${m.step}: reward ${m.reward_mean?.toFixed(3) ?? "-"}, env calls ${m.env_calls}`,
          );
        break;
      }
      case "arm-done":
        stopBar(key);
        log(`[seed ${e.seed}] arm ${e.arm} done in ${e.minutes.toFixed(1)} min`);
        break;
      case "arm-reused":
        log(`[seed ${e.seed}] arm ${e.arm} reused from ${e.file}`);
        break;
      case "arm-failed":
        stopBar(key);
        log(`[seed ${e.seed}] arm ${e.arm} FAILED: ${e.error} (the other arms go on)`);
        break;
      case "seed-failed":
        stopBar(key);
        log(
          `[seed ${e.seed}] FAILED in its ${e.stage} stage: ${e.error} (its arms do not run; other seeds go on)`,
        );
        break;
    }
  };
  return { onEvent, stop: () => multi?.stop() };
}
