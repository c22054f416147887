import { lnCorrect } from "./py-math.js";

/**
 * rank_bm25's `BM25Plus` (k1 1.5, b 0.75, delta 1; idf = ln((N + 1) / df)), summed in its order
 * so scores match to the last bit. An empty corpus divides by zero, as there.
 */
export function bm25PlusScores(corpus: string[][], query: string[], k1 = 1.5, b = 0.75, delta = 1): number[] {
  const n = corpus.length;
  const docFreqs = corpus.map((doc) => {
    const f = new Map<string, number>();
    for (const w of doc) f.set(w, (f.get(w) ?? 0) + 1);
    return f;
  });
  const df = new Map<string, number>();
  for (const f of docFreqs) for (const w of f.keys()) df.set(w, (df.get(w) ?? 0) + 1);
  const total = corpus.reduce((a, d) => a + d.length, 0);
  if (n === 0) throw Object.assign(new Error("division by zero"), { name: "ZeroDivisionError" });
  const avgdl = total / n;
  const idf = new Map<string, number>();
  for (const [w, f] of df) idf.set(w, lnCorrect((n + 1) / f));
  const scores = new Array<number>(n).fill(0);
  for (const q of query) {
    const w = idf.get(q) ?? 0;
    for (let i = 0; i < n; i++) {
      const tf = docFreqs[i]!.get(q) ?? 0;
      scores[i]! += w * (delta + (tf * (k1 + 1)) / (k1 * (1 - b + (b * corpus[i]!.length) / avgdl) + tf));
    }
  }
  return scores;
}
