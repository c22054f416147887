/**
 * FinMCP-Bench's metrics, as its evaluation script computes them: per sample, the tool names of
 * every assistant tool call (ground truth vs prediction) are compared as multisets: TP = common
 * calls, FP = predicted extra, FN = missed. Tool precision TP/(TP+FP), recall TP/(TP+FN), F1 their
 * harmonic mean (0 when a denominator is 0). Exact match (EMR) = the two ordered name lists are
 * equal. Aggregates: macro (mean of the per-sample values), micro (from summed counts), EMR mean,
 * overall and per scenario (first level), difficulty and task type, each rounded to 4 decimals.
 * Only tool names are compared; arguments are not (as upstream).
 */
import { pyRound } from "../../envs/tau2/py-round.js";
import type { FinMessage, FinSample } from "./types.js";

export function toolNames(messages: readonly FinMessage[]): string[] {
  return messages.flatMap((m) => (m.tool_calls ?? []).map((c) => String(c.function.name)));
}

export interface SampleScore {
  id: string | number;
  scenario: string;
  difficulty: string;
  task: string;
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
  f1: number;
  exact_match: boolean;
}

const safeDiv = (a: number, b: number) => (b > 0 ? a / b : 0);

/** Multiset TP/FP/FN (Python's Counter `&` and `-`). */
export function countMatches(
  pred: readonly string[],
  gold: readonly string[],
): { tp: number; fp: number; fn: number } {
  const count = (xs: readonly string[]) =>
    xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const p = count(pred);
  const g = count(gold);
  let tp = 0;
  for (const [name, n] of p) tp += Math.min(n, g.get(name) ?? 0);
  return { tp, fp: pred.length - tp, fn: gold.length - tp };
}

export function prf(tp: number, fp: number, fn: number): { precision: number; recall: number; f1: number } {
  const precision = safeDiv(tp, tp + fp);
  const recall = safeDiv(tp, tp + fn);
  return { precision, recall, f1: safeDiv(2 * precision * recall, precision + recall) };
}

export function scoreSample(sample: FinSample, predicted: readonly FinMessage[]): SampleScore {
  const gold = toolNames(sample.messages);
  const pred = toolNames(predicted);
  const { tp, fp, fn } = countMatches(pred, gold);
  return {
    id: sample.id,
    scenario: (sample.scenery.split("-")[0] ?? "").trim(),
    difficulty: sample.diff_level.level,
    task: (sample.task ?? "any").replace(/ /g, "_"),
    tp,
    fp,
    fn,
    ...prf(tp, fp, fn),
    exact_match: gold.length === pred.length && gold.every((n, i) => n === pred[i]),
  };
}

export interface FinMetrics {
  macro_precision: number;
  macro_recall: number;
  macro_f1: number;
  micro_precision: number;
  micro_recall: number;
  micro_f1: number;
  /** Exact-match rate (upstream's `consist_mean`). */
  emr: number;
  n: number;
}

const r4 = (x: number) => pyRound(x, 4);
const mean = (xs: number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

export function aggregate(scores: readonly SampleScore[]): FinMetrics {
  const sum = (k: "tp" | "fp" | "fn") => scores.reduce((a, s) => a + s[k], 0);
  const micro = prf(sum("tp"), sum("fp"), sum("fn"));
  return {
    macro_precision: r4(mean(scores.map((s) => s.precision))),
    macro_recall: r4(mean(scores.map((s) => s.recall))),
    macro_f1: r4(mean(scores.map((s) => s.f1))),
    micro_precision: r4(micro.precision),
    micro_recall: r4(micro.recall),
    micro_f1: r4(micro.f1),
    emr: r4(mean(scores.map((s) => (s.exact_match ? 1 : 0)))),
    n: scores.length,
  };
}

function groupBy(
  scores: readonly SampleScore[],
  key: "scenario" | "difficulty" | "task",
): Record<string, FinMetrics> {
  const groups = new Map<string, SampleScore[]>();
  for (const s of scores) groups.set(s[key], [...(groups.get(s[key]) ?? []), s]);
  return Object.fromEntries([...groups].map(([k, v]) => [k, aggregate(v)]));
}

export interface FinReport {
  overall: FinMetrics;
  by_scenario: Record<string, FinMetrics>;
  by_difficulty: Record<string, FinMetrics>;
  by_task: Record<string, FinMetrics>;
}

export function finReport(scores: readonly SampleScore[]): FinReport {
  return {
    overall: aggregate(scores),
    by_scenario: groupBy(scores, "scenario"),
    by_difficulty: groupBy(scores, "difficulty"),
    by_task: groupBy(scores, "task"),
  };
}
