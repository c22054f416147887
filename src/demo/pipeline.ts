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
  | { kind: "gate"; seed: number; firstCallCopy: number; fidelity: number; passed: boolean };

/** The SFT gate from the probes: RL on a model that cannot copy ids or rehearse faithfully is noise. */
export const GATE = { firstCallCopy: 0.95, fidelity: 0.9 };

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
  const specs = armSpecs(plan.rl.klAnchor).filter((a) => !opts.arms || opts.arms.includes(a.name));
  const runsByArm = new Map<ArmName, ArmRun[]>();
  const gates: { copy: number; fidelity: number }[] = [];
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
      });
      try {
        onEvent({ kind: "stage", seed, stage: `evaluate ${spec.name}` });
        const evaluation = await evaluateArm(policy, spec, data, plan);
        if (spec.name === "sft") {
          const gate = { copy: evaluation.firstCallCopy, fidelity: evaluation.fidelity.recorded.exact };
          gates.push(gate);
          const passed = gate.copy >= GATE.firstCallCopy && gate.fidelity >= GATE.fidelity;
          onEvent({ kind: "gate", seed, firstCallCopy: gate.copy, fidelity: gate.fidelity, passed });
        }
        if (!opts.skipTestTime && (spec.name === "sft" || spec.name === "envace")) {
          onEvent({ kind: "stage", seed, stage: `test-time rehearsal ${spec.name}` });
          testtime.push(
            ...(await testTimeRows(
              spec.name,
              policy,
              data.eval.envless,
              opts.quick ? 2 : 4,
              plan.concurrency,
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

  const gate = {
    first_call_copy: gates.reduce((a, g) => a + g.copy, 0) / Math.max(1, gates.length),
    fidelity: gates.reduce((a, g) => a + g.fidelity, 0) / Math.max(1, gates.length),
  };
  const passed = gate.first_call_copy >= GATE.firstCallCopy && gate.fidelity >= GATE.fidelity;
  if (gates.length > 0 && !passed) {
    notes.push(
      `SFT gate NOT met (first-call copy ${(100 * gate.first_call_copy).toFixed(1)}% < ${100 * GATE.firstCallCopy}% or ` +
        `fidelity ${(100 * gate.fidelity).toFixed(1)}% < ${100 * GATE.fidelity}%): the RL arms start from a model that ` +
        "cannot yet copy ids or rehearse faithfully, so their differences are mostly noise." +
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
