import { describe, expect, it } from "vitest";
import {
  packByTokenBudget,
  rowToSequence,
  targetTokens,
  weightCallsByTokenShare,
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

describe("weightCallsByTokenShare", () => {
  it("scales each call's advantages by its share of target tokens", () => {
    const a = rowToSequence(row("act", 3, 1), 1); // 3 targets
    const b = rowToSequence(row("act", 1, 1), -2); // 1 target
    const [c1, c2] = weightCallsByTokenShare([[a], [b]]);
    expect(c1![0]!.advantages).toEqual([0, 0.75, 0.75, 0.75]);
    expect(c2![0]!.advantages).toEqual([0, -0.5]);
    // masks untouched
    expect(targetTokens([...c1!, ...c2!])).toBe(4);
  });
});
