/**
 * FAISS's `IndexIDMap(IndexFlatIP)` as upstream's vector memory uses it, without FAISS: vectors
 * kept in insertion order under caller ids, an exhaustive inner-product search, and FAISS's
 * k-selection, whose tie order is part of what the model sees. FAISS scans the stored vectors in
 * order, keeps the k best in a heap (a vector enters only when strictly better than the worst
 * kept; among equal scores the earlier-stored one counts as worse) and returns them best first,
 * equal scores latest-stored first. Removing compacts the storage, keeping the others' order.
 */
export interface SearchHit {
  id: number;
  score: number;
}

export class FlatIpIndex {
  private ids: number[] = [];
  private vectors: Float32Array[] = [];

  get size(): number {
    return this.ids.length;
  }

  add(id: number, vector: Float32Array): void {
    this.ids.push(id);
    this.vectors.push(vector);
  }

  remove(id: number): void {
    const keep = this.ids.map((x) => x !== id);
    this.ids = this.ids.filter((_, i) => keep[i]);
    this.vectors = this.vectors.filter((_, i) => keep[i]);
  }

  reset(): void {
    this.ids = [];
    this.vectors = [];
  }

  /** The k best by inner product; k must be in 1..size (upstream passes `min(top_k, len)`). */
  search(query: Float32Array, k: number): SearchHit[] {
    // Kept entries by storage position; "worse" = lower score, then earlier position.
    const kept: Array<{ pos: number; score: number }> = [];
    const worse = (a: { pos: number; score: number }, b: { pos: number; score: number }) =>
      a.score < b.score || (a.score === b.score && a.pos < b.pos);
    for (let pos = 0; pos < this.vectors.length; pos++) {
      const score = innerProduct(query, this.vectors[pos]!);
      if (kept.length < k) {
        kept.push({ pos, score });
        continue;
      }
      let worst = 0;
      for (let i = 1; i < kept.length; i++) if (worse(kept[i]!, kept[worst]!)) worst = i;
      if (score > kept[worst]!.score) kept[worst] = { pos, score };
    }
    return kept
      .sort((a, b) => (worse(a, b) ? 1 : worse(b, a) ? -1 : 0))
      .map(({ pos, score }) => ({ id: this.ids[pos]!, score }));
  }
}

/**
 * A float32 inner product: summed in double and rounded once. FAISS sums float32 lanes in SIMD
 * order, so a score may differ from its in the last float32 bit (equal vectors still tie).
 */
function innerProduct(a: Float32Array, b: Float32Array): number {
  let s = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) s += a[i]! * b[i]!;
  return Math.fround(s);
}
