import { describe, expect, it } from "vitest";

import { pyJsonDumps } from "../../../src/envs/tau2/py-json.js";

describe("pyJsonDumps with indent 0 (the reference rehearsal prompt's layout)", () => {
  it("writes what Python's json.dumps(v, indent=0) writes", () => {
    // Expected string produced by CPython 3: json.dumps(v, indent=0) for the same value.
    const value = { a: [1, 2.5, {}], b: { c: "é\n" }, d: [], e: [[true, null]], f: 1e-7 };
    expect(pyJsonDumps(value, { indent: 0 })).toBe(
      '{\n"a": [\n1,\n2.5,\n{}\n],\n"b": {\n"c": "\\u00e9\\n"\n},\n"d": [],\n"e": [\n[\ntrue,\nnull\n]\n],\n"f": 1e-07\n}',
    );
  });

  it("leaves the one-line layout unchanged without it", () => {
    expect(pyJsonDumps({ a: [1, {}], b: [] })).toBe('{"a": [1, {}], "b": []}');
  });
});
