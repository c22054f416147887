import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { errorLine, isEnvaceError } from "../core/errors.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import { writeReport } from "../report/html.js";
import { resultsMarkdown } from "../report/markdown.js";
import type { DemoResults } from "../report/results.js";
import type { StepMetrics } from "../train/step-metrics.js";
import { armResult, testTimeOverSeeds, type ArmRun } from "./aggregate.js";
import { armSpecs, type ArmName } from "./arms.js";
import { codeVersion } from "./code-version.js";
import { COPY_CHECK_MIN, copyRate } from "./copy-check.js";
import { worldDriftNote } from "./data.js";
import { demoRehearsalPrompt, FULL_PLAN, QUICK_PLAN, withRlSteps, type DemoPlan } from "./layout.js";
import { armsFailed, GATE, gatePassed, runSeed } from "./run-seed.js";
import type { SftProgress } from "./sft-stage.js";

export interface DemoOptions {
  quick: boolean;
  /** Base seed of task generation and training; seed k of `seeds` is `seed + k`. */
  seed: number;
  seeds: number;
  /**
   * Seeds run side by side (`--jobs`, default 1): each holds its own SFT run and arm workers, so
   * memory grows with it. Each seed's runs are seeded by that seed, not by the order seeds run in.
   */
  jobs?: number;
  out: string;
  /** Where SFT checkpoints are cached across runs. */
  cacheDir: string;
  /** Arms to run (default: all). */
  arms?: readonly ArmName[];
  /** Skip the test-time rehearsal rows. */
  skipTestTime?: boolean;
  /** Only the SFT stage and the `sft` row with its gate, per seed (`--sft-only`): the gate's distribution. */
  sftOnly?: boolean;
  /** Overrides of the plan (tests, experiments). */
  plan?: Partial<DemoPlan>;
  /** RL steps of every RL arm (`--rl-steps`), over the plan's (`withRlSteps`). */
  rlSteps?: number;
}

/** What the pipeline reports as it goes; the CLI turns it into progress bars. */
export type DemoEvent =
  | { kind: "stage"; seed: number; stage: string }
  | { kind: "sft"; seed: number; progress: SftProgress; cached?: boolean }
  | { kind: "arm-start"; seed: number; arm: ArmName; steps: number }
  | { kind: "arm-step"; seed: number; arm: ArmName; metrics: StepMetrics }
  | { kind: "arm-episodes"; seed: number; arm: ArmName; done: number; total: number }
  | { kind: "arm-done"; seed: number; arm: ArmName; minutes: number }
  /** An arm an earlier run with the same `--out` finished under the same plan, seed and SFT: not run again. */
  | { kind: "arm-reused"; seed: number; arm: ArmName; file: string }
  /** An arm that failed: the seed's other arms go on, and the run fails once every seed is done. */
  | { kind: "arm-failed"; seed: number; arm: ArmName; error: string }
  /** A seed whose data or SFT stage failed: none of its arms run; the other seeds go on. */
  | { kind: "seed-failed"; seed: number; stage: string; error: string }
  | {
      kind: "gate";
      seed: number;
      firstCallCopy: number;
      writeCallCopy: number;
      fidelity: number;
      fidelityUnseen: number;
      passed: boolean;
    };

/**
 * `envace demo`: data → tiny model → SFT (cached) → every arm from the SFT checkpoint → real-env
 * evaluation, fidelity, co-adaptation diagnostic → test-time rows → results.json, results.md,
 * report.html. Seeds run `jobs` at a time (default one after another); arms `plan.armJobs` at a time
 * within a seed.
 */
export async function runDemo(
  opts: DemoOptions,
  onEvent: (e: DemoEvent) => void = () => {},
): Promise<DemoResults> {
  const t0 = Date.now();
  // the code's fingerprint (arm results' key) taken now, from the code this process loaded: a build
  // during the run (SFT alone takes ~15 min) must not label its arms with the new code's
  const code = codeVersion();
  const base: DemoPlan = { ...(opts.quick ? QUICK_PLAN : FULL_PLAN), ...opts.plan };
  const plan = opts.rlSteps !== undefined ? withRlSteps(base, opts.rlSteps) : base;
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const arms = opts.sftOnly ? ["sft"] : opts.arms;
  const specs = armSpecs(plan.rl.klAnchor).filter((a) => !arms || arms.includes(a.name));
  const notes: string[] = [];
  const seeds = Array.from({ length: opts.seeds }, (_, k) => opts.seed + k);
  // A seed that fails does not stop the others (nor those not started yet): what finishes is kept
  // (`arm-result.json`), and the failures are thrown together at the end.
  const settled = await mapConcurrent(seeds, Math.max(1, opts.jobs ?? 1), async (seed) => {
    try {
      const run = await runSeed(seed, {
        plan,
        specs,
        out,
        multiSeed: opts.seeds > 1,
        code,
        cacheDir: opts.cacheDir,
        quick: opts.quick,
        testTime: !opts.skipTestTime && !opts.sftOnly,
        onEvent,
      });
      return { run };
    } catch (e) {
      return { failed: failuresOf(seed, e) };
    }
  });
  const failed = settled.flatMap((s) => s.failed ?? []);
  if (failed.length > 0) throw armsFailed(failed);
  const seedRuns = settled.flatMap((s) => (s.run ? [s.run] : []));
  // Combined in seed order, whatever order the seeds finished in.
  const gates = seedRuns.flatMap((s) => (s.gate ? [s.gate] : []));
  const testtimeBySeed = seedRuns.map((s) => s.testtime);
  const runsByArm = new Map<ArmName, ArmRun[]>();
  for (const run of seedRuns.flatMap((s) => s.runs)) {
    runsByArm.set(run.spec.name, [...(runsByArm.get(run.spec.name) ?? []), run]);
  }

  const mean = (f: (g: (typeof gates)[number]) => number) =>
    gates.reduce((a, g) => a + f(g), 0) / Math.max(1, gates.length);
  const seedsPassed = gates.filter(gatePassed).length;
  const gate = {
    first_call_copy: mean((g) => g.copy),
    write_call_copy: mean((g) => g.writeCopy),
    fidelity: mean((g) => g.fidelity),
    fidelity_unseen: mean((g) => g.unseen),
    seeds_passed: seedsPassed,
    per_seed: gates.map((g) => ({
      seed: g.seed,
      first_call_copy: g.copy,
      write_call_copy: g.writeCopy,
      fidelity: g.fidelity,
      fidelity_unseen: g.unseen,
      passed: gatePassed(g),
      envless_success: g.envless,
      flawed_traces: g.flawed,
      copy_check: {
        write: copyRate(g.check.write),
        reply: copyRate(g.check.reply),
        passed: g.check.passed,
        reply_met: g.check.replyMet,
        write_level: COPY_CHECK_MIN.write,
        reply_level: COPY_CHECK_MIN.reply,
      },
      sft_attempts: g.attempts,
    })),
  };
  const passed = gates.length > 0 && seedsPassed === gates.length;
  if (gates.length > 0 && !passed) {
    notes.push(
      `SFT gate NOT met on ${gates.length - seedsPassed} of ${gates.length} seed(s) (needs first-call copy ≥ ` +
        `${100 * GATE.firstCallCopy}%, write-call copy ≥ ${100 * GATE.writeCallCopy}% and fidelity on unseen ` +
        `calls ≥ ${100 * GATE.fidelityUnseen}%; mean first-call copy ${(100 * gate.first_call_copy).toFixed(1)}%, ` +
        `write-call copy ${(100 * gate.write_call_copy).toFixed(1)}%, unseen fidelity ` +
        `${(100 * gate.fidelity_unseen).toFixed(1)}%): the RL arms of those seeds start from a model that cannot ` +
        "yet copy what the request says or rehearse faithfully, so their differences are mostly noise." +
        (opts.quick ? " (--quick trains far too little to pass it; run the full demo.)" : ""),
    );
  }
  const drift = worldDriftNote(plan);
  if (drift) notes.push(drift);
  const results: DemoResults = {
    minutes: (Date.now() - t0) / 60000,
    report: join(out, "report.html"),
    seed: opts.seed,
    seeds: opts.seeds,
    quick: opts.quick,
    rehearsal_prompt: demoRehearsalPrompt(plan),
    ...(opts.sftOnly ? {} : { rl_steps: plan.rl.steps }),
    sft_gate: { ...gate, passed },
    arms: specs.filter((s) => runsByArm.has(s.name)).map((s) => armResult(runsByArm.get(s.name)!)),
    testtime: testTimeOverSeeds(testtimeBySeed),
    notes,
  };
  writeFileSync(join(out, "results.json"), JSON.stringify(results, null, 2) + "\n");
  writeFileSync(join(out, "results.md"), resultsMarkdown(results));
  await writeReport(out);
  return results;
}

/** A failed seed's failures: its arms' (`ARMS_FAILED`), or the seed's own (its SFT stage). */
function failuresOf(seed: number, e: unknown): string[] {
  if (isEnvaceError(e, "ARMS_FAILED")) return (e.details as { failed: string[] }).failed;
  return [`seed ${seed}: ${errorLine(e)}`];
}
