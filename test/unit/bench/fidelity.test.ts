import { describe, expect, it } from "vitest";
import { fidelity, leafPairs, summarizeFidelity } from "../../../src/bench/fidelity.js";

describe("fidelity", () => {
  it("is exact regardless of key order", () => {
    expect(fidelity({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual({ exact: true, f1: 1 });
  });

  it("scores field-level F1 by hand", () => {
    // rehearsed: 3 leaves, 2 right; real: 4 leaves → P = 2/3, R = 2/4, F1 = 4/7
    const s = fidelity(
      { id: "o1", status: "shipped", total: 5 },
      { id: "o1", status: "pending", total: 5, user: "u1" },
    );
    expect(s.exact).toBe(false);
    expect(s.f1).toBeCloseTo(4 / 7, 10);
  });

  it("treats list order and duplicates as a multiset of indexed leaves", () => {
    expect(leafPairs(["a", "b"])).toEqual(['$[0]="a"', '$[1]="b"']);
    expect(fidelity(["b", "a"], ["a", "b"]).f1).toBe(0);
    expect(fidelity([], []).exact).toBe(true);
    expect(fidelity({}, { a: 1 }).f1).toBe(0);
  });

  it("averages scores", () => {
    expect(
      summarizeFidelity([
        { exact: true, f1: 1 },
        { exact: false, f1: 0.5 },
      ]),
    ).toEqual({ exact: 0.5, f1: 0.75, n: 2 });
    expect(summarizeFidelity([])).toEqual({ exact: 0, f1: 0, n: 0 });
  });
});
