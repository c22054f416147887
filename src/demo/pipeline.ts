import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { writeReport } from "../report/html.js";
import { resultsMarkdown } from "../report/markdown.js";
import type { DemoResults, TestTimeRow } from "../report/results.js";
import type { StepMetrics } from "../train/step-metrics.js";
import { armResult, pooled, type ArmRun } from "./aggregate.js";
import { armSpecs, type ArmName } from "./arms.js";
import { buildDemoData } from "./data.js";
import { evaluateArm } from "./evaluate-arm.js";
import { FULL_PLAN, QUICK_PLAN, type DemoPlan } from "./layout.js";
import { armOutDir, trainArm } from "./run-arm.js";
import { sftCheckpoint, type SftProgress } from "./sft-stage.js";
import { testTimeRows } from "./testtime-rows.js";
import { copyRate, type CopyCheckScore } from "./copy-check.js";

export interface DemoOptions {
  quick: boolean;
  /** Base seed of task generation and training; seed k of `seeds` is `seed + k`. */
  seed: number;
  seeds: number;
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
}

/** What the pipeline reports as it goes; the CLI turns it into progress bars. */
export type DemoEvent =
  | { kind: "stage"; seed: number; stage: string }
  | { kind: "sft"; seed: number; progress: SftProgress; cached?: boolean }
  | { kind: "arm-start"; seed: number; arm: ArmName; steps: number }
  | { kind: "arm-step"; seed: number; arm: ArmName; metrics: StepMetrics }
  | { kind: "arm-episodes"; seed: number; arm: ArmName; done: number; total: number }
  | { kind: "arm-done"; seed: number; arm: ArmName; minutes: number }
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
 * The SFT gate: RL on a model that cannot copy ids, or whose rehearsals of calls it was not shown
 * the answers to are mostly wrong, is noise. Fidelity is checked on unseen calls (issue 11): on
 * recorded calls with their answers in the prompt it only measures copying. The unseen threshold is
 * lower than the recorded one was: an unseen call's answer comes from what the model learned of the
 * domain's worlds, not from the prompt. Write-call copy (v11): a model that copies its first call
 * but writes the looked-up day instead of the requested one fails half the write tasks before RL
 * starts (v10: 43.4 / 57.8% on seeds 3 / 9, the two seeds under 30% success; 78.7–89.0% on 0–2).
 */
export const GATE = { firstCallCopy: 0.95, writeCallCopy: 0.7, fidelityUnseen: 0.6 };

function gatePassed(g: { copy: number; writeCopy: number; unseen: number }): boolean {
  return g.copy >= GATE.firstCallCopy && g.writeCopy >= GATE.writeCallCopy && g.unseen >= GATE.fidelityUnseen;
}

/**
 * `envace demo`: data → tiny model → SFT (cached) → every arm from the SFT checkpoint → real-env
 * evaluation, fidelity, co-adaptation diagnostic → test-time rows → results.json, results.md,
 * report.html. Seeds run one after another; arms one after another within a seed.
 */
export async function runDemo(
  opts: DemoOptions,
  onEvent: (e: DemoEvent) => void = () => {},
): Promise<DemoResults> {
  const t0 = Date.now();
  const plan: DemoPlan = { ...(opts.quick ? QUICK_PLAN : FULL_PLAN), ...opts.plan };
  const out = resolve(opts.out);
  mkdirSync(out, { recursive: true });
  const arms = opts.sftOnly ? ["sft"] : opts.arms;
  const specs = armSpecs(plan.rl.klAnchor).filter((a) => !arms || arms.includes(a.name));
  const runsByArm = new Map<ArmName, ArmRun[]>();
  const gates: {
    seed: number;
    copy: number;
    writeCopy: number;
    fidelity: number;
    unseen: number;
    envless: number;
    flawed: number;
    check: CopyCheckScore;
    attempts: number;
  }[] = [];
  const testtimeBySeed: TestTimeRow[][] = [];
  const notes: string[] = [];

  for (let k = 0; k < opts.seeds; k++) {
    const seed = opts.seed + k;
    onEvent({ kind: "stage", seed, stage: "data" });
    const data = buildDemoData(plan, seed);
    const allTrain = Object.values(data.train);

    const sft = await sftCheckpoint(data, plan, seed, opts.cacheDir, (progress) =>
      onEvent({ kind: "sft", seed, progress }),
    );
    onEvent({ kind: "sft", seed, progress: { phase: "save" }, cached: sft.cached });

    const testtime: TestTimeRow[] = [];
    for (const spec of specs) {
      const a0 = Date.now();
      onEvent({ kind: "arm-start", seed, arm: spec.name, steps: spec.mode ? plan.rl.steps : 0 });
      const tasks = spec.domains.flatMap((d) => data.train[d] ?? []);
      const armDir =
        opts.seeds > 1 ? join(armOutDir(out, spec.name), `seed-${seed}`) : armOutDir(out, spec.name);
      const { worker, policy, training } = await trainArm(spec, {
        sftDir: sft.dir,
        plan,
        tasks: tasks.length > 0 ? tasks : allTrain.flat(),
        outDir: armDir,
        seed,
        onStep: (metrics) => onEvent({ kind: "arm-step", seed, arm: spec.name, metrics }),
        onEpisode: (done, total) => onEvent({ kind: "arm-episodes", seed, arm: spec.name, done, total }),
        curveTasks: spread(data.eval.envless, plan.curveTasks),
      });
      try {
        onEvent({ kind: "stage", seed, stage: `evaluate ${spec.name}` });
        const evaluation = await evaluateArm(policy, spec, data, plan);
        if (spec.name === "sft") {
          const envless = evaluation.success.envless;
          const gate = {
            seed,
            copy: evaluation.firstCallCopy,
            writeCopy: evaluation.writeCallCopy,
            fidelity: evaluation.fidelity.recorded.exact,
            unseen: evaluation.fidelityUnseen.exact,
            envless: envless.reduce((a, b) => a + b, 0) / Math.max(1, envless.length),
            flawed: sft.flawedShare,
            check: sft.check,
            attempts: sft.attempts.length,
          };
          gates.push(gate);
          onEvent({
            kind: "gate",
            seed,
            firstCallCopy: gate.copy,
            writeCallCopy: gate.writeCopy,
            fidelity: gate.fidelity,
            fidelityUnseen: gate.unseen,
            passed: gatePassed(gate),
          });
        }
        if (!opts.skipTestTime && !opts.sftOnly && (spec.name === "sft" || spec.name === "envace")) {
          onEvent({ kind: "stage", seed, stage: `test-time rehearsal ${spec.name}` });
          testtime.push(
            ...(await testTimeRows(
              spec.name,
              policy,
              data.eval.envless,
              opts.quick ? 2 : 4,
              plan.concurrency,
              plan.testtimeTemperature,
            )),
          );
        }
        const minutes = (Date.now() - a0) / 60000;
        const runs = runsByArm.get(spec.name) ?? [];
        runs.push({ spec, training, evaluation, minutes });
        runsByArm.set(spec.name, runs);
        onEvent({ kind: "arm-done", seed, arm: spec.name, minutes });
      } finally {
        await worker.stop();
      }
    }
    testtimeBySeed.push(testtime);
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
  const results: DemoResults = {
    minutes: (Date.now() - t0) / 60000,
    report: join(out, "report.html"),
    seed: opts.seed,
    seeds: opts.seeds,
    quick: opts.quick,
    sft_gate: { ...gate, passed },
    arms: specs.filter((s) => runsByArm.has(s.name)).map((s) => armResult(runsByArm.get(s.name)!)),
    testtime: mergeTestTime(testtimeBySeed),
    notes,
  };
  writeFileSync(join(out, "results.json"), JSON.stringify(results, null, 2) + "\n");
  writeFileSync(join(out, "results.md"), resultsMarkdown(results));
  await writeReport(out);
  return results;
}

/** `n` tasks spread evenly over `tasks` (both env-less domains, not just the first). */
function spread<T>(tasks: readonly T[], n: number): T[] {
  if (tasks.length <= n) return [...tasks];
  return Array.from({ length: n }, (_, i) => tasks[Math.floor((i * tasks.length) / n)]!);
}

/** Test-time rows of several seeds pooled row by row (same policy, mode and N). */
function mergeTestTime(bySeed: readonly TestTimeRow[][]): TestTimeRow[] {
  if (bySeed.length <= 1) return bySeed[0] ?? [];
  return bySeed[0]!.map((row, i) => {
    const rows = bySeed.map((s) => s[i]!);
    return {
      ...row,
      success: pooled(rows.map((r) => [r.success.mean ?? 0])),
      real_calls_during_rehearsal: rows.reduce((a, r) => a + r.real_calls_during_rehearsal, 0),
      rehearsal_tokens_per_task: rows.reduce((a, r) => a + r.rehearsal_tokens_per_task, 0) / rows.length,
    };
  });
}
