import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { languageOf, type BfclCategory } from "../../../src/bench/bfcl/categories.js";
import { evaluateAst, evaluateRelevance } from "../../../src/bench/bfcl/evaluate-single-turn.js";
import { goldCalls } from "../../../src/bench/bfcl/gold.js";
import { loadCategory } from "../../../src/bench/bfcl/load.js";
import { parsePythonLiteral } from "../../../src/envs/bfcl/python-call-parser.js";
import { fromPlain, pyRepr } from "../../../src/envs/bfcl/py-value.js";
import { BFCL_DIR } from "./data.js";

const AST_CATEGORIES: BfclCategory[] = [
  "simple_python",
  "simple_java",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "live_simple",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
];

/**
 * Entries no output can pass under upstream's checker, with the verdict every attempt gets:
 * a required parameter whose answer list is empty, an answer parameter the function doc lacks,
 * and Java `ArrayList<any>` answers holding non-strings (the converter keeps every element a string).
 */
const UNPASSABLE: Record<string, string> = {
  simple_java_36: "value_error:list/tuple",
  simple_java_65: "value_error:list/tuple",
  "live_simple_106-63-0": "simple_function_checker:missing_required",
  "live_simple_112-68-0": "simple_function_checker:missing_required",
  "live_multiple_507-149-4": "simple_function_checker:missing_required",
  "live_multiple_862-181-3": "simple_function_checker:unexpected_param",
  "live_multiple_964-207-0": "simple_function_checker:missing_required",
};

describe("AST checker: the official answers", () => {
  for (const category of AST_CATEGORIES) {
    it(`gold passes every passable ${category} entry`, () => {
      const { entries, answers } = loadCategory(BFCL_DIR, category);
      expect(entries.length).toBeGreaterThan(10);
      for (const [i, entry] of entries.entries()) {
        const gold = goldCalls(answers![i]!, entry.function, languageOf(category));
        const v = evaluateAst(entry, answers![i]!, gold);
        const expected = UNPASSABLE[entry.id];
        if (expected) expect({ id: entry.id, type: v.error_type }).toEqual({ id: entry.id, type: expected });
        else expect({ id: entry.id, ...v }).toEqual({ id: entry.id, valid: true });
      }
    });
  }
});

interface UpstreamVerdict {
  category: BfclCategory;
  id: string;
  candidate: string;
  valid: boolean;
  error_type: string | null;
  error: string;
}

describe("AST checker: verdicts recorded from upstream's checker", () => {
  // Each case was run through upstream's ast_checker.py (commit 6ea5797); `error` is its Python repr.
  const cases = JSON.parse(
    readFileSync(new URL("./upstream-verdicts.json", import.meta.url), "utf8"),
  ) as UpstreamVerdict[];
  const loaded = new Map<string, ReturnType<typeof loadCategory>>();
  for (const c of cases) {
    it(`${c.id}: ${c.valid ? "valid" : c.error_type} for ${c.candidate.slice(0, 80)}`, () => {
      if (!loaded.has(c.category)) loaded.set(c.category, loadCategory(BFCL_DIR, c.category));
      const { entries, answers } = loaded.get(c.category)!;
      const i = entries.findIndex((e) => e.id === c.id);
      const v = evaluateAst(entries[i]!, answers![i]!, parsePythonLiteral(c.candidate));
      expect(v.valid).toBe(c.valid);
      if (!c.valid) {
        expect(v.error_type).toBe(c.error_type);
        expect(pyRepr(fromPlain(v.error))).toBe(c.error);
      }
    });
  }
});

describe("relevance and irrelevance", () => {
  it("irrelevance passes only when nothing call-shaped was decoded", () => {
    expect(evaluateRelevance("irrelevance", []).valid).toBe(true);
    expect(evaluateRelevance("irrelevance", [{}]).valid).toBe(true);
    expect(evaluateRelevance("irrelevance", { decodeError: "invalid syntax" }).valid).toBe(true);
    expect(evaluateRelevance("live_irrelevance", [{ f: {} }])).toMatchObject({
      valid: false,
      error_type: "irrelevance_error:decoder_success",
    });
  });
  it("relevance needs a decoded call", () => {
    expect(evaluateRelevance("live_relevance", [{ f: { a: 1 } }]).valid).toBe(true);
    expect(evaluateRelevance("live_relevance", [])).toMatchObject({
      error_type: "relevance_error:decoder_failed",
    });
  });
  it("a decode failure or a non-call shape is the decoder's error", () => {
    const { entries, answers } = loadCategory(BFCL_DIR, "simple_python");
    expect(evaluateAst(entries[0]!, answers![0]!, { decodeError: "x" }).error_type).toBe(
      "ast_decoder:decoder_failed",
    );
    expect(evaluateAst(entries[0]!, answers![0]!, ["text"]).error_type).toBe(
      "ast_decoder:decoder_wrong_output_format",
    );
  });
});

describe("loader", () => {
  it("aligns answers by index and keeps numbers lossless", () => {
    const { entries, answers } = loadCategory(BFCL_DIR, "simple_python");
    expect(entries[28]!.id).toBe("simple_python_28");
    expect(pyRepr(answers![28]!)).toBe(
      "[{'calculate_displacement': {'initial_velocity': [10], 'time': [5], 'acceleration': [9.8]}}]",
    );
  });
  it("fills multi-turn docs from involved_classes and holds back missed functions", () => {
    const { entries } = loadCategory(BFCL_DIR, "multi_turn_miss_func");
    const e = entries[0]!;
    expect(e.involved_classes).toEqual(["TwitterAPI", "GorillaFileSystem"]);
    expect(e.function.some((f) => f.name === "sort")).toBe(false);
    expect(e.function.some((f) => f.name === "post_tweet")).toBe(true);
    expect(e.missed_function!["3"]!.map((f) => f.name)).toEqual(["sort"]);
  });
});
