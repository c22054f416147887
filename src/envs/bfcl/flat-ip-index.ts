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
 * FAISS's float32 inner product as its x86-64 AVX-512 build computes it (faiss-cpu 1.11, the
 * version upstream pins; measured bit for bit on random vectors of 3 to 392 dimensions): 16
 * fused multiply-add lanes over the blocks of 16, the lanes folded to 8 (lane k + lane k+8), one
 * more 8-lane block if 8 or more values remain, the 8 lanes summed by halving, then the last
 * values fused-multiply-added one by one. Other builds may round the last bit differently.
 */
function innerProduct(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  const acc = new Array<number>(16).fill(0);
  let i = 0;
  for (; i + 16 <= n; i += 16) for (let k = 0; k < 16; k++) acc[k] = fmaF32(a[i + k]!, b[i + k]!, acc[k]!);
  const lanes = acc.slice(0, 8).map((x, k) => Math.fround(x + acc[k + 8]!));
  if (i + 8 <= n) {
    for (let k = 0; k < 8; k++) lanes[k] = fmaF32(a[i + k]!, b[i + k]!, lanes[k]!);
    i += 8;
  }
  for (let width = 4; width >= 1; width /= 2) {
    for (let k = 0; k < width; k++) lanes[k] = Math.fround(lanes[k]! + lanes[k + width]!);
  }
  let sum = lanes[0]!;
  for (; i < n; i++) sum = fmaF32(a[i]!, b[i]!, sum);
  return sum;
}

const F32 = new Float32Array(1);
const I32 = new Int32Array(F32.buffer);

/** The float32 next to `x` (a float32) towards +∞ or −∞. */
function stepF32(x: number, up: boolean): number {
  F32[0] = x;
  if (x === 0) {
    I32[0] = 1;
    return up ? F32[0] : -F32[0];
  }
  I32[0] = I32[0]! + (x > 0 === up ? 1 : -1);
  return F32[0];
}

/**
 * `fmaf(a, b, c)` for float32 operands: the product is exact in a double, the sum's rounding
 * error is recovered exactly (TwoSum), and a double result lying exactly halfway between two
 * float32s is resolved by that error, so the result is rounded once, as the hardware does.
 */
export function fmaF32(a: number, b: number, c: number): number {
  const p = a * b;
  const s = p + c;
  const bv = s - p;
  const err = p - (s - bv) + (c - bv);
  const r = Math.fround(s);
  if (err === 0 || r === s) return r;
  const other = stepF32(r, s > r);
  if (Math.abs(s - r) !== Math.abs(other - s)) return r;
  // A tie in the double: the exact value lies on the side the error points to.
  return err > 0 === other > r ? other : r;
}
