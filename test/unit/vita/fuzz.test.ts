/** The fuzzy matching equals rapidfuzz/thefuzz bit for bit (fixtures/generate_fuzz_cases.py). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  defaultProcess,
  extractPartial,
  partialRatio,
  pyRoundInt,
  ratio,
  rerank,
} from "../../../src/envs/vita/fuzz.js";

const fixture = JSON.parse(readFileSync(new URL("fixtures/fuzz-cases.json", import.meta.url), "utf8")) as {
  cases: { a: string; b: string; partial_ratio: number; ratio: number }[];
  extract: { query: string; choices: string[]; ranked: [string, number][] }[];
};

describe("fuzzy matching as rapidfuzz computes it", () => {
  it("partial_ratio and ratio are the same doubles on 440 random pairs", () => {
    for (const c of fixture.cases) {
      expect(partialRatio(c.a, c.b), JSON.stringify(c)).toBe(c.partial_ratio);
      expect(ratio(c.a, c.b), JSON.stringify(c)).toBe(c.ratio);
    }
  });
  it("process.extract ranks and rounds as thefuzz does", () => {
    for (const e of fixture.extract)
      expect(extractPartial(e.query, e.choices).map((r) => [r.choice, r.score])).toEqual(e.ranked);
  });
  it("the default processor turns every non-alphanumeric character (even _) into a space", () => {
    expect(defaultProcess("  A_b-C, 中文! ")).toBe("a b c  中文");
  });
  it("rounds halves to even like Python's round", () => {
    expect([
      pyRoundInt(0.5),
      pyRoundInt(1.5),
      pyRoundInt(2.5),
      pyRoundInt(2.4999),
      pyRoundInt(66.66),
    ]).toEqual([0, 2, 2, 2, 67]);
  });
  it("rerank maps equal documents to the last key and keeps ties in order", () => {
    const docs = new Map([
      ["a", "noodle shop"],
      ["b", "rice bowl"],
      ["c", "noodle shop"],
      ["d", "rice bowl"],
    ]);
    expect(rerank("noodle", docs).map((r) => r.id)).toEqual(["c", "c", "d", "d"]);
  });
});
