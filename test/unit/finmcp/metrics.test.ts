/**
 * FinMCP-Bench metrics on a small, clearly synthetic file in its published format. Expected values
 * are computed by hand (and agree with upstream's evaluation.py run on the same file):
 *   sample 1: gold [GetQuote], pred [GetQuote]                     TP1 FP0 FN0  P1   R1   F1 1   exact
 *   sample 2: gold [SearchFunds, GetFundInfo×2], pred [GetFundInfo, SearchFunds]
 *                                                                  TP2 FP0 FN1  P1   R2/3 F1 0.8
 *   sample 3: gold [GetNews, GetQuote], pred [GetQuote×2, Foo]     TP1 FP2 FN1  P1/3 R1/2 F1 0.4
 *   sample 4: prediction marked error → dropped
 *   macro P (1+1+1/3)/3=0.7778, R (1+2/3+1/2)/3=0.7222, F1 2.2/3=0.7333; micro 4/6=0.6667; EMR 1/3.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFinSamples } from "../../../src/bench/finmcp/load.js";
import { countMatches, scoreSample } from "../../../src/bench/finmcp/metrics.js";
import { scoreFinMcp } from "../../../src/bench/finmcp/bench-runner.js";
import type { FinMessage } from "../../../src/bench/finmcp/types.js";

const fixture = (name: string) => new URL(`fixtures/${name}`, import.meta.url).pathname;

describe("FinMCP-Bench metrics", () => {
  const samples = readFinSamples(fixture("synthetic-benchmark.json"));
  const preds = readFinSamples(fixture("synthetic-predictions.json"));
  const predMap = new Map<string, FinMessage[] | "error">(
    preds.map((p) => [String(p.id), p.error ? "error" : (p.messages_pred ?? "error")]),
  );

  it("counts tool calls as multisets", () => {
    expect(countMatches(["a", "a", "b"], ["a", "c"])).toEqual({ tp: 1, fp: 2, fn: 1 });
    expect(countMatches([], [])).toEqual({ tp: 0, fp: 0, fn: 0 });
  });

  it("scores each sample by tool names", () => {
    const [s1, s2, s3] = samples.slice(0, 3).map((s, i) => scoreSample(s, preds[i]!.messages_pred ?? []));
    expect(s1).toMatchObject({
      tp: 1,
      fp: 0,
      fn: 0,
      precision: 1,
      recall: 1,
      f1: 1,
      exact_match: true,
      task: "single_step",
    });
    expect(s2).toMatchObject({ tp: 2, fp: 0, fn: 1, precision: 1, exact_match: false, difficulty: "medium" });
    expect(s2!.recall).toBeCloseTo(2 / 3, 12);
    expect(s2!.f1).toBeCloseTo(0.8, 12);
    expect(s3).toMatchObject({ tp: 1, fp: 2, fn: 1, recall: 0.5, exact_match: false, task: "multi_turn" });
    expect(s3!.f1).toBeCloseTo(0.4, 12);
  });

  it("aggregates macro, micro and EMR as the paper's script does, dropping error samples", () => {
    const s = scoreFinMcp("finmcp:final", samples, predMap);
    expect(s.dropped).toBe(1);
    expect(s.metrics.overall).toEqual({
      macro_precision: 0.7778,
      macro_recall: 0.7222,
      macro_f1: 0.7333,
      micro_precision: 0.6667,
      micro_recall: 0.6667,
      micro_f1: 0.6667,
      emr: 0.3333,
      n: 3,
    });
    expect(s.reward_mean).toBe(0.7333);
    expect(Object.keys(s.metrics.by_scenario)).toEqual(["SYNTHETIC"]);
    expect(s.metrics.by_difficulty.hard).toMatchObject({ macro_f1: 0.4, n: 1 });
    expect(s.metrics.by_task.multi_step).toMatchObject({ macro_recall: 0.6667, emr: 0 });
  });

  it("the ground truth scores 1 on every metric; no calls score 0", () => {
    const gold = scoreFinMcp("g", samples, new Map(samples.map((x) => [String(x.id), x.messages])));
    expect(gold.metrics.overall).toMatchObject({ macro_f1: 1, micro_f1: 1, emr: 1, n: 4 });
    const none = scoreFinMcp("n", samples, new Map(samples.map((x) => [String(x.id), []])));
    expect(none.metrics.overall).toMatchObject({ macro_f1: 0, micro_recall: 0, emr: 0 });
  });

  it("refuses a malformed file naming the sample and field", () => {
    const dir = mkdtempSync(join(tmpdir(), "finmcp-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify([{ id: 9, diff_level: { level: "easy" }, messages: [] }]));
    expect(() => readFinSamples(file)).toThrow(/sample 0 \(id 9\): scenery/);
    writeFileSync(file, "{}");
    expect(() => readFinSamples(file)).toThrow(/must be a JSON array/);
  });
});
