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

/** verl's `loss_agg_mode` names (core_algos.py `agg_loss`). */
export type LossAggMode = "token-mean" | "seq-mean-token-mean" | "seq-mean-token-sum";

/**
 * Sets each sequence's `weight`: the weight of each of its target tokens in the step's loss, so
 * that Σ over the whole step of weight × token loss is the aggregation `mode` asks for, however the
 * sequences are later split into `forward_backward` calls (the worker sums weighted token losses,
 * the KL term included, and gradients add up across calls until `optim_step`).
 * - `token-mean`: 1 / (targets in the step). Every token weighs the same, so a long response
 *   weighs in proportion to its length.
 * - `seq-mean-token-mean`: 1 / (rows × the row's targets). Every row weighs the same, so each
 *   token of a long response weighs less than one of a short response. This is what the reference
 *   computes: verl's `token-mean` over micro-batches of one row, averaged over the mini-batch.
 * - `seq-mean-token-sum`: 1 / rows. Each row's token sum, averaged over rows: a long response
 *   weighs more than a short one by its length.
 */
export function weightByAggregation(seqs: readonly TrainSequence[], mode: LossAggMode): TrainSequence[] {
  const targets = seqs.map((s) => sum(s.lossMask));
  const rows = seqs.length;
  const total = sum(targets);
  return seqs.map((s, i) => {
    let weight: number;
    if (targets[i] === 0) weight = 0;
    else if (mode === "token-mean") weight = 1 / total;
    else if (mode === "seq-mean-token-mean") weight = 1 / (rows * targets[i]!);
    else weight = 1 / rows;
    return { ...s, weight };
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
