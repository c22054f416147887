import { sumFailures } from "../bench/failure-kinds.js";
import type { ArmResult, MeanCIJson, TestTimeRow } from "../report/results.js";
import { meanCI } from "../report/stats.js";
import type { ArmSpec } from "./arms.js";
import type { ArmEvaluation } from "./evaluate-arm.js";
import { EVAL_SPLITS } from "./layout.js";
import type { ArmTraining } from "./run-arm.js";

function json(values: readonly number[]): MeanCIJson {
  const m = meanCI(values);
  return {
    mean: Number.isNaN(m.mean) ? null : m.mean,
    ci95: Number.isNaN(m.ci95) ? null : m.ci95,
    n: m.n,
  };
}

/**
 * One seed: mean and 95% CI over tasks. Several seeds: the mean of the seeds' means with the
 * interval over seeds (tasks within a seed are not independent of that seed's model).
 */
export function pooled(perSeed: readonly (readonly number[])[]): MeanCIJson {
  if (perSeed.length === 1) return json(perSeed[0]!);
  const means = perSeed.filter((v) => v.length > 0).map((v) => v.reduce((a, b) => a + b, 0) / v.length);
  return json(means);
}

/** [mean − ci95, mean + ci95], clipped to [0, 1]; null without an interval. */
export function interval(m: MeanCIJson): [number, number] | null {
  if (m.mean === null || m.ci95 === null) return null;
  return [Math.max(0, m.mean - m.ci95), Math.min(1, m.mean + m.ci95)];
}

export interface ArmRun {
  spec: ArmSpec;
  training: ArmTraining;
  evaluation: ArmEvaluation;
  minutes: number;
}

/** Per-tool exact matches over seeds: counts add up, the share is over all of them. */
function byToolOverSeeds(
  perSeed: readonly Record<string, { hits: number; n: number }>[],
): NonNullable<ArmResult["fidelity_unseen_by_tool"]> {
  const sum: Record<string, { hits: number; n: number }> = {};
  for (const seed of perSeed) {
    for (const [tool, { hits, n }] of Object.entries(seed)) {
      const t = (sum[tool] ??= { hits: 0, n: 0 });
      t.hits += hits;
      t.n += n;
    }
  }
  return Object.fromEntries(
    Object.entries(sum)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([tool, t]) => [tool, { exact: t.n > 0 ? t.hits / t.n : 0, n: t.n }]),
  );
}

export function armResult(runs: readonly ArmRun[]): ArmResult {
  const spec = runs[0]!.spec;
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const fid = (key: "recorded" | "own_calls") => ({
    exact: avg(runs.map((r) => r.evaluation.fidelity[key].exact)),
    f1: avg(runs.map((r) => r.evaluation.fidelity[key].f1)),
    n: runs.reduce((a, r) => a + r.evaluation.fidelity[key].n, 0),
  });
  const success = Object.fromEntries(
    EVAL_SPLITS.map((s) => [s, pooled(runs.map((r) => r.evaluation.success[s]))]),
  ) as ArmResult["success"];
  const rw = runs.map((r) => r.evaluation.rehearsedWorldSuccess);
  const unseen = {
    exact: avg(runs.map((r) => r.evaluation.fidelityUnseen.exact)),
    f1: avg(runs.map((r) => r.evaluation.fidelityUnseen.f1)),
    n: runs.reduce((a, r) => a + r.evaluation.fidelityUnseen.n, 0),
  };
  return {
    name: spec.name,
    train_env_calls: runs.reduce((a, r) => a + r.training.envCalls, 0),
    success,
    reward_mean: avg(runs.flatMap((r) => r.evaluation.reward)),
    fidelity: { recorded: fid("recorded"), own_calls: fid("own_calls") },
    fidelity_unseen: unseen,
    fidelity_unseen_by_tool: byToolOverSeeds(runs.map((r) => r.evaluation.fidelityUnseenByTool)),
    // a seed with no task in a set has no success there (null), not 0
    success_per_seed: Object.fromEntries(
      EVAL_SPLITS.map((s) => [
        s,
        runs.map((r) => (r.evaluation.success[s].length > 0 ? avg(r.evaluation.success[s]) : null)),
      ]),
    ) as ArmResult["success_per_seed"],
    success_ci: Object.fromEntries(
      EVAL_SPLITS.map((s) => [s, interval(success[s])]),
    ) as ArmResult["success_ci"],
    heldout_first_call: {
      domain_tool: avg(runs.map((r) => r.evaluation.heldoutFirstCall.domain_tool)),
      right_tool: avg(runs.map((r) => r.evaluation.heldoutFirstCall.right_tool)),
      exact: avg(runs.map((r) => r.evaluation.heldoutFirstCall.exact)),
    },
    envless_failures: sumFailures(runs.map((r) => r.evaluation.envlessFailures)),
    rehearsed_world_success: rw.every((x) => x !== null) ? pooled(rw as number[][]) : null,
    steps: runs[0]!.training.steps,
    minutes: runs.reduce((a, r) => a + r.minutes, 0),
  };
}

/**
 * The test-time rows of several seeds as one, row by row (same policy, mode, N, memory and guard,
 * matched by that key, not by position): success pooled over the seeds that measured the row
 * (`pooled`; a seed without the row, or whose row has no mean, is left out, not counted as 0),
 * each seed's own kept in `success_per_seed` (null where a seed has none), held calls and real calls
 * summed, tokens per task averaged over the seeds that ran the row.
 */
export function testTimeOverSeeds(bySeed: readonly TestTimeRow[][]): TestTimeRow[] {
  if (bySeed.length <= 1) return bySeed[0] ?? [];
  const keyed = bySeed.map((rows) => new Map(rows.map((r) => [testTimeRowKey(r), r])));
  const keys = new Set(keyed.flatMap((seed) => [...seed.keys()]));
  return [...keys].map((key) => {
    const perSeed = keyed.map((seed) => seed.get(key));
    const rows = perSeed.filter((r) => r !== undefined);
    const held = rows.map((r) => r.held_calls).filter((h) => h !== undefined);
    const replaced = rows.map((r) => r.rewritten_steps).filter((h) => h !== undefined);
    return {
      ...rows[0]!,
      // over the seeds' means, as `pooled` does for arms
      success: json(rows.map((r) => r.success.mean).filter((m) => m !== null)),
      // issue 11's test-time target is read per seed: each seed's row stays in the results
      success_per_seed: perSeed.map((r) => r?.success.mean ?? null),
      ...(held.length > 0 ? { held_calls: held.reduce((a, h) => a + h, 0) } : {}),
      ...(replaced.length > 0 ? { rewritten_steps: replaced.reduce((a, h) => a + h, 0) } : {}),
      real_calls_during_rehearsal: rows.reduce((a, r) => a + r.real_calls_during_rehearsal, 0),
      rehearsal_tokens_per_task: rows.reduce((a, r) => a + r.rehearsal_tokens_per_task, 0) / rows.length,
    };
  });
}

/** What makes two seeds' test-time rows the same row. */
function testTimeRowKey(r: TestTimeRow): string {
  return JSON.stringify([r.policy, r.mode, r.n, r.memory ?? null, r.guard ?? false, r.note_use ?? "act"]);
}
