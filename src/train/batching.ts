import { EnvaceError } from "../core/errors.js";
import type { Row } from "../rollout/types.js";
import type { TrainSequence } from "./engine.js";

/**
 * Rows → `forward_backward` sequences, packed into calls within a token budget.
 *
 * A row is one model call: the prompt it saw and the tokens it sampled. Its sequence is
 * `promptTokenIds ++ tokenIds`; only the sampled part is a target (loss mask 1), every sampled token
 * gets the row's advantage, and the sampling logprobs line up with the sampled tokens (0 under the
 * prompt, where the mask is 0 and they are never read).
 */
export function rowToSequence(row: Row, advantage: number): TrainSequence {
  if (row.promptTokenIds.length === 0) {
    // Servers that do not return token ids give rows we cannot train on without re-tokenizing.
    throw new EnvaceError(
      "WORKER_ERROR",
      "a row has no prompt token ids: the policy endpoint must return token ids (return_token_ids)",
    );
  }
  if (row.logprobs.length !== row.tokenIds.length) {
    throw new EnvaceError(
      "INVALID_DATA_FILE",
      `row has ${row.tokenIds.length} sampled tokens but ${row.logprobs.length} logprobs`,
    );
  }
  const p = row.promptTokenIds.length;
  const n = row.tokenIds.length;
  return {
    tokenIds: [...row.promptTokenIds, ...row.tokenIds],
    lossMask: [...zeros(p), ...ones(n)],
    advantages: [...zeros(p), ...new Array<number>(n).fill(advantage)],
    samplingLogprobs: [...zeros(p), ...row.logprobs],
  };
}

/**
 * First-fit packing in order: each call holds sequences whose total length ≤ `maxTokens`. A single
 * sequence longer than the budget goes alone into its own call (it cannot be split without
 * changing what it conditions on; the rollout's context budget keeps such rows rare) and is counted.
 */
export function packByTokenBudget<T extends { tokenIds: number[] }>(
  seqs: readonly T[],
  maxTokens: number,
): { calls: T[][]; oversized: number } {
  const calls: T[][] = [];
  let current: T[] = [];
  let used = 0;
  let oversized = 0;
  for (const s of seqs) {
    const len = s.tokenIds.length;
    if (len > maxTokens) oversized++;
    if (current.length > 0 && used + len > maxTokens) {
      calls.push(current);
      current = [];
      used = 0;
    }
    current.push(s);
    used += len;
  }
  if (current.length > 0) calls.push(current);
  return { calls, oversized };
}

/**
 * The worker averages the loss over the masked tokens of ONE call, and gradients add up across
 * calls until `optim_step`. To make the whole batch a token-mean (every target token weighs the
 * same whichever call it landed in), each call's advantages are scaled by its share of the batch's
 * target tokens. The policy-gradient losses (`ppo`, `importance_sampling`) are linear in the
 * advantage, so this is exact for them; a KL term is not rescaled (it stays a per-call mean).
 */
export function weightCallsByTokenShare(calls: TrainSequence[][]): TrainSequence[][] {
  const targetsByCall = calls.map((c) => c.reduce((a, s) => a + sum(s.lossMask), 0));
  const total = sum(targetsByCall);
  if (total === 0) return calls;
  return calls.map((c, i) => {
    const w = targetsByCall[i]! / total;
    return c.map((s) => ({ ...s, advantages: s.advantages.map((a) => a * w) }));
  });
}

/** Number of target tokens (mask 1) in sequences. */
export function targetTokens(seqs: readonly TrainSequence[]): number {
  return seqs.reduce((a, s) => a + sum(s.lossMask), 0);
}

function zeros(n: number): number[] {
  return new Array<number>(n).fill(0);
}
function ones(n: number): number[] {
  return new Array<number>(n).fill(1);
}
function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}
