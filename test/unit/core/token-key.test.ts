import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { tokenKey } from "../../../src/core/token-key.js";

const ids = fc.array(fc.integer({ min: 0, max: 2 ** 31 - 1 }), { maxLength: 20 });

describe("tokenKey", () => {
  it("is equal for equal sequences and differs when any id or the split between them does", () => {
    fc.assert(
      fc.property(ids, ids, (a, b) => {
        expect(tokenKey(a, b)).toBe(tokenKey([...a], [...b]));
        if (a.length > 0) expect(tokenKey(a.slice(1), [a[0]!, ...b])).not.toBe(tokenKey(a, b));
        expect(tokenKey([...a, 1], b)).not.toBe(tokenKey([...a, 2], b));
      }),
    );
  });
});
