import { describe, expect, it } from "vitest";
import { isSuccessful, passHatK, passHatKs } from "../../../src/bench/pass-hat-k.js";

describe("passHatK", () => {
  // 3 tasks × 4 trials; successes 4, 2, 0.
  const table = [
    [true, true, true, true],
    [true, false, true, false],
    [false, false, false, false],
  ];
  it("matches hand computation", () => {
    // k=1: (4/4 + 2/4 + 0)/3 = 0.5
    expect(passHatK(table, 1)).toBeCloseTo(0.5, 12);
    // k=2: (C(4,2)/C(4,2) + C(2,2)/C(4,2) + 0)/3 = (1 + 1/6)/3 = 7/18
    expect(passHatK(table, 2)).toBeCloseTo(7 / 18, 12);
    // k=3: (1 + 0 + 0)/3
    expect(passHatK(table, 3)).toBeCloseTo(1 / 3, 12);
    expect(passHatK(table, 4)).toBeCloseTo(1 / 3, 12);
    expect(passHatKs(table, 2)).toEqual({ 1: passHatK(table, 1), 2: passHatK(table, 2) });
  });
  it("refuses k above the number of trials", () => {
    expect(() => passHatK(table, 5)).toThrow(RangeError);
  });
  it("counts success as reward 1 within 1e-6", () => {
    expect(isSuccessful(1)).toBe(true);
    expect(isSuccessful(0.9999999)).toBe(true);
    expect(isSuccessful(0.99)).toBe(false);
    expect(isSuccessful(0)).toBe(false);
  });
});
