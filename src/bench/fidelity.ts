import { canonicalJson } from "../core/canonical-json.js";

/**
 * Rehearsal fidelity: how close a rehearsed tool response is to the real one.
 * - exact: the two parse to the same JSON value (key order ignored);
 * - field F1: both values flattened to leaf `path = value` pairs; precision is the share of
 *   rehearsed leaves that the real response has, recall the share of real leaves rehearsed.
 * Strings that are not JSON are compared as single leaves.
 */

export function parseMaybeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Leaf pairs `path=value` as a multiset (arrays keep their indices: order matters in lists). */
export function leafPairs(value: unknown, path = "$"): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0) return [`${path}=[]`];
    return value.flatMap((v, i) => leafPairs(v, `${path}[${i}]`));
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [`${path}={}`];
    return entries.flatMap(([k, v]) => leafPairs(v, `${path}.${k}`));
  }
  return [`${path}=${JSON.stringify(value)}`];
}

export interface FidelityScore {
  exact: boolean;
  f1: number;
}

export function fidelity(rehearsed: unknown, real: unknown): FidelityScore {
  const exact = canonicalJson(rehearsed) === canonicalJson(real);
  if (exact) return { exact, f1: 1 };
  const predicted = leafPairs(rehearsed);
  const truth = new Map<string, number>();
  for (const p of leafPairs(real)) truth.set(p, (truth.get(p) ?? 0) + 1);
  let matched = 0;
  for (const p of predicted) {
    const left = truth.get(p) ?? 0;
    if (left > 0) {
      matched++;
      truth.set(p, left - 1);
    }
  }
  const realCount = leafPairs(real).length;
  if (matched === 0) return { exact, f1: 0 };
  const precision = matched / predicted.length;
  const recall = matched / realCount;
  return { exact, f1: (2 * precision * recall) / (precision + recall) };
}

/** Aggregates scores into rates. */
export function summarizeFidelity(scores: readonly FidelityScore[]): {
  exact: number;
  f1: number;
  n: number;
} {
  const n = scores.length;
  if (n === 0) return { exact: 0, f1: 0, n };
  return {
    exact: scores.filter((s) => s.exact).length / n,
    f1: scores.reduce((a, s) => a + s.f1, 0) / n,
    n,
  };
}
