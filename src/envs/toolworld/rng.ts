/** A small seeded PRNG (mulberry32): the same seed gives the same worlds and tasks on every machine. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  /** `k` distinct items in random order. */
  sample<T>(items: readonly T[], k: number): T[];
}

export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[int(items.length)] as T;
  };
  const sample = <T>(items: readonly T[], k: number): T[] => {
    const copy = [...items];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = int(i + 1);
      [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
    }
    return copy.slice(0, k);
  };
  return { next, int, pick, sample };
}

/** FNV-1a over the joined parts: a stable 32-bit seed derived from names and numbers. */
export function seedOf(...parts: (string | number)[]): number {
  let h = 0x811c9dc5;
  for (const ch of parts.join("|")) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}
