/**
 * The fuzzy matching VitaBench's search and address tools use: thefuzz's `process.extract(query,
 * choices, scorer=fuzz.partial_ratio, limit=None)`, which runs rapidfuzz (C++) underneath. Ranking
 * ties keep the choices' order, and the ranking uses rapidfuzz's unrounded float score, so the
 * score must be the same double: `(1 - indelDistance / (len1 + len2)) * 100` of the best window.
 */

/**
 * rapidfuzz's C++ `default_process` (thefuzz's `full_process`): every character that is not a
 * letter or digit becomes a space (the underscore too, unlike the pure-Python fallback), then
 * lowercase, then surrounding whitespace trimmed.
 */
export function defaultProcess(s: string): string {
  let out = "";
  for (const ch of s) out += /[\p{L}\p{N}]/u.test(ch) ? ch.toLowerCase() : " ";
  return out.trim();
}

/** Length of the longest common subsequence, bit-parallel over 32-bit words (Hyyrö). */
function lcsLength(pattern: number[], text: number[], start: number, end: number): number {
  const m = pattern.length;
  if (m === 0 || end <= start) return 0;
  const words = Math.ceil(m / 32);
  const masks = new Map<number, Uint32Array>();
  pattern.forEach((c, i) => {
    let mask = masks.get(c);
    if (!mask) masks.set(c, (mask = new Uint32Array(words)));
    mask[i >>> 5] = ((mask[i >>> 5] as number) | (1 << (i & 31))) >>> 0;
  });
  const S = new Uint32Array(words).fill(0xffffffff);
  if (m % 32 !== 0) S[words - 1] = (2 ** (m % 32) - 1) >>> 0;
  for (let j = start; j < end; j++) {
    const M = masks.get(text[j] as number);
    if (!M) continue;
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const s = S[w] as number;
      const u = (s & (M[w] as number)) >>> 0;
      const sum = s + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      S[w] = ((sum >>> 0) | (s & ~u)) >>> 0;
    }
    if (m % 32 !== 0) S[words - 1] = ((S[words - 1] as number) & (2 ** (m % 32) - 1)) >>> 0;
  }
  let ones = 0;
  for (let w = 0; w < words; w++) {
    let x = S[w] as number;
    while (x) {
      x = (x & (x - 1)) >>> 0;
      ones++;
    }
  }
  return m - ones;
}

/** Normalized Indel similarity in [0, 1] of `a` against `b[start:end]`. */
function indelSimilarity(a: number[], b: number[], start: number, end: number): number {
  const lensum = a.length + (end - start);
  if (lensum === 0) return 1;
  const dist = lensum - 2 * lcsLength(a, b, start, end);
  return 1 - dist / lensum;
}

const codes = (s: string): number[] => Array.from(s, (ch) => ch.codePointAt(0) as number);

/** rapidfuzz `fuzz.ratio` (no preprocessing), as a float in [0, 100]. */
export function ratio(s1: string, s2: string): number {
  const a = codes(s1);
  const b = codes(s2);
  if (a.length === 0 && b.length === 0) return 100;
  return indelSimilarity(a, b, 0, b.length) * 100;
}

/** Best window of `longer` for `shorter` (len(shorter) <= len(longer)), as rapidfuzz scans them. */
function partialImpl(shorter: number[], longer: number[]): number {
  const len1 = shorter.length;
  const len2 = longer.length;
  const charSet = new Set(shorter);
  let best = 0;
  const consider = (start: number, end: number): boolean => {
    const sim = indelSimilarity(shorter, longer, start, end);
    if (sim > best) best = sim;
    return best === 1;
  };
  for (let i = 1; i < len1; i++) {
    if (!charSet.has(longer[i - 1] as number)) continue;
    if (consider(0, i)) return 100;
  }
  for (let i = 0; i < len2 - len1; i++) {
    if (!charSet.has(longer[i + len1 - 1] as number)) continue;
    if (consider(i, i + len1)) return 100;
  }
  for (let i = Math.max(0, len2 - len1); i < len2; i++) {
    if (!charSet.has(longer[i] as number)) continue;
    if (consider(i, len2)) return 100;
  }
  return best * 100;
}

/** rapidfuzz `fuzz.partial_ratio` (no preprocessing), as a float in [0, 100]. */
export function partialRatio(s1: string, s2: string): number {
  const a = codes(s1);
  const b = codes(s2);
  if (a.length === 0 && b.length === 0) return 100;
  if (a.length === 0 || b.length === 0) return 0;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  let score = partialImpl(shorter, longer);
  if (score !== 100 && a.length === b.length) score = Math.max(score, partialImpl(longer, shorter));
  return score;
}

/** Python's `int(round(x))`: halves go to the even integer. */
export function pyRoundInt(x: number): number {
  const f = Math.floor(x);
  const diff = x - f;
  if (diff > 0.5) return f + 1;
  if (diff < 0.5) return f;
  return f % 2 === 0 ? f : f + 1;
}

/** thefuzz `fuzz.ratio`: rounded, no preprocessing. */
export function thefuzzRatio(s1: string, s2: string): number {
  return pyRoundInt(ratio(s1, s2));
}

/** thefuzz `fuzz.partial_ratio`: rounded, no preprocessing. */
export function thefuzzPartialRatio(s1: string, s2: string): number {
  return pyRoundInt(partialRatio(s1, s2));
}

/**
 * thefuzz `process.extract(query, choices, scorer=fuzz.partial_ratio, limit=None)`: query and
 * choices go through `defaultProcess`, results sorted by the float score descending (stable), each
 * with its rounded score.
 */
export function extractPartial(query: string, choices: string[]): { choice: string; score: number }[] {
  const q = defaultProcess(query);
  const scored = choices.map((choice, index) => ({
    choice,
    index,
    raw: partialRatio(q, defaultProcess(choice)),
  }));
  scored.sort((x, y) => y.raw - x.raw || x.index - y.index);
  return scored.map(({ choice, raw }) => ({ choice, score: pyRoundInt(raw) }));
}

/**
 * VitaBench's `rerank(keywords, docs)`: ranks a dict's values and maps each back to its key. As
 * upstream builds the reverse map with a dict comprehension, equal values map to the last key.
 */
export function rerank(
  keywords: string,
  docs: Map<string, string>,
): { id: string; doc: string; score: number }[] {
  const reverse = new Map<string, string>();
  for (const [id, doc] of docs) reverse.set(doc, id);
  return extractPartial(keywords, [...docs.values()]).map(({ choice, score }) => ({
    id: reverse.get(choice) as string,
    doc: choice,
    score,
  }));
}
