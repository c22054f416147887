import type { Standard, Task } from "../core/task.js";

/**
 * Weighted score of one checklist's standards for one turn, in [0, 1]: Σ weight·passed / Σ weight.
 * A turn with no standards in this checklist scores 0, as in the reference (envs.py
 * `_aggregate_turn_score` skips it). The reference sums raw weights; dividing by their sum is our
 * difference, equal to it when a turn's weights sum to 1 (docs/reference-parity.md).
 */
export function weightedScore(standards: readonly Standard[], passed: readonly boolean[]): number {
  const total = standards.reduce((s, st) => s + st.weight, 0);
  if (total === 0) return 0;
  return standards.reduce((s, st, k) => s + (passed[k] ? st.weight : 0), 0) / total;
}

/** The number of user turns the checklists cover (the `max user turns` of the reward's denominator). */
export function maxUserTurns(task: Task): number {
  return Math.max(task.user_turns.length, ...task.checklists.map((c) => c.length));
}

/**
 * Episode reward = Σ turn scores / (num checklists × max user turns), where a turn score is the sum
 * over checklists of that checklist's weight-normalised score; so a perfect episode scores 1 and
 * a turn never reached scores 0. With no checklists the reward is 0.
 */
export function episodeReward(task: Task, turnScores: readonly number[]): number {
  const denom = task.checklists.length * maxUserTurns(task);
  if (denom === 0) return 0;
  return turnScores.reduce((a, b) => a + b, 0) / denom;
}
