import { describe, expect, it } from "vitest";
import {
  packByTokenBudget,
  rowToSequence,
  targetTokens,
  weightByAggregation,
} from "../../../src/train/batching.js";
import { isEnvaceError } from "../../../src/core/errors.js";
import { row } from "./helpers.js";

describe("rowToSequence", () => {
  it("concatenates prompt and sample, masks only the sample, aligns advantages and logprobs", () => {
    const s = rowToSequence(row("act", 2, 3), 0.5);
    expect(s.tokenIds).toEqual([100, 101, 102, 200, 201]);
    expect(s.lossMask).toEqual([0, 0, 0, 1, 1]);
    expect(s.advantages).toEqual([0, 0, 0, 0.5, 0.5]);
    expect(s.samplingLogprobs).toEqual([0, 0, 0, -0.1, -0.2]);
  });
  it("rejects a row without prompt token ids (an endpoint that returns none)", () => {
    expect(() => rowToSequence({ ...row("act"), promptTokenIds: [] }, 1)).toThrow(/token ids/);
  });
  it("rejects a row whose logprobs do not match its tokens", () => {
    const r = { ...row("act"), logprobs: [-1] };
    expect(() => rowToSequence(r, 1)).toThrow();
    try {
      rowToSequence(r, 1);
    } catch (e) {
      expect(isEnvaceError(e)).toBe(true);
    }
  });
});

describe("packByTokenBudget", () => {
  const seq = (n: number) => ({ tokenIds: new Array<number>(n).fill(1) });
  it("keeps every call within the budget, in order, losing nothing", () => {
    const seqs = [5, 4, 3, 8, 2, 2, 6].map(seq);
    const { calls, oversized } = packByTokenBudget(seqs, 10);
    expect(calls.map((c) => c.map((s) => s.tokenIds.length))).toEqual([[5, 4], [3], [8, 2], [2, 6]]);
    expect(calls.flat()).toEqual(seqs);
    expect(oversized).toBe(0);
    for (const c of calls) expect(c.reduce((a, s) => a + s.tokenIds.length, 0)).toBeLessThanOrEqual(10);
  });
  it("puts an over-budget sequence alone and counts it", () => {
    const { calls, oversized } = packByTokenBudget([2, 15, 3].map(seq), 10);
    expect(calls.map((c) => c.map((s) => s.tokenIds.length))).toEqual([[2], [15], [3]]);
    expect(oversized).toBe(1);
  });
});

describe("weightByAggregation", () => {
  const a = rowToSequence(row("act", 3, 1), 1); // 3 targets
  const b = rowToSequence(row("act", 1, 1), -2); // 1 target
  const lossAt = (seqs: ReturnType<typeof weightByAggregation>, perToken: (s: number, t: number) => number) =>
    seqs.reduce(
      (acc, s, i) => acc + s.weight! * s.lossMask.reduce((x, m, t) => x + (m ? perToken(i, t) : 0), 0),
      0,
    );
  it("token-mean: every target token of the step weighs 1/total", () => {
    const w = weightByAggregation([a, b], "token-mean");
    expect(w.map((s) => s.weight)).toEqual([0.25, 0.25]);
    expect(lossAt(w, () => 1)).toBeCloseTo(1, 12);
  });
  it("seq-mean-token-mean: each row's mean, then the mean over rows", () => {
    const w = weightByAggregation([a, b], "seq-mean-token-mean");
    expect(w.map((s) => s.weight)).toEqual([1 / 6, 1 / 2]);
    // token losses 1,2,3 in a (mean 2) and 10 in b: (2 + 10) / 2
    expect(lossAt(w, (i, t) => (i === 0 ? t : 10))).toBeCloseTo(6, 12);
  });
  it("seq-mean-token-sum: each row's sum, then the mean over rows", () => {
    const w = weightByAggregation([a, b], "seq-mean-token-sum");
    expect(w.map((s) => s.weight)).toEqual([0.5, 0.5]);
    expect(lossAt(w, (i, t) => (i === 0 ? t : 10))).toBeCloseTo((6 + 10) / 2, 12);
  });
  it("leaves advantages and masks untouched", () => {
    const w = weightByAggregation([a, b], "token-mean");
    expect(w[0]!.advantages).toEqual(a.advantages);
    expect(targetTokens(w)).toBe(4);
  });
});
