/**
 * CPython's `random.Random` (MT19937 seeded by `init_by_array` from an int seed), exactly: the
 * BFCL backends draw ids and readings from it with fixed seeds, and a port must draw the same
 * numbers (TravelAPI's first access token from seed 141053 is 251675, as in CPython).
 */
export class PyRandom {
  private readonly mt = new Uint32Array(624);
  private index = 625;

  constructor(seed: number | bigint) {
    this.seed(BigInt(seed));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.index = 624;
  }

  private seed(seed: bigint): void {
    // CPython uses abs(seed) split into 32-bit words, least significant first (at least one word).
    let n = seed < 0n ? -seed : seed;
    const key: number[] = [];
    do {
      key.push(Number(n & 0xffffffffn));
      n >>= 32n;
    } while (n > 0n);
    this.initGenrand(19650218);
    const mt = this.mt;
    let i = 1;
    let j = 0;
    for (let k = Math.max(624, key.length); k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= 624) {
        mt[0] = mt[623]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k > 0; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) {
        mt[0] = mt[623]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  private genrand(): number {
    const mt = this.mt;
    if (this.index >= 624) {
      for (let kk = 0; kk < 624; kk++) {
        const y = (mt[kk]! & 0x80000000) | (mt[(kk + 1) % 624]! & 0x7fffffff);
        mt[kk] = mt[(kk + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.index = 0;
    }
    let y = mt[this.index++]!;
    y ^= y >>> 11;
    y = (y ^ ((y << 7) & 0x9d2c5680)) >>> 0;
    y = (y ^ ((y << 15) & 0xefc60000)) >>> 0;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)`: 32-bit words filled least significant first. */
  getrandbits(k: number): bigint {
    if (k <= 32) return BigInt(this.genrand() >>> (32 - k));
    let out = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32) {
      let r = this.genrand();
      if (left < 32) r >>>= 32 - left;
      out |= BigInt(r) << shift;
      shift += 32n;
    }
    return out;
  }

  private randbelow(n: bigint): bigint {
    const k = n.toString(2).length;
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `randint(a, b)`, both ends included. */
  randint(a: number, b: number): number {
    return Number(BigInt(a) + this.randbelow(BigInt(b) - BigInt(a) + 1n));
  }

  /** `random()`: 53 random bits in [0, 1). */
  random(): number {
    const a = this.genrand() >>> 5;
    const b = this.genrand() >>> 6;
    return (a * 67108864 + b) / 9007199254740992;
  }

  uniform(a: number, b: number): number {
    return a + (b - a) * this.random();
  }

  choice<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("Cannot choose from an empty sequence");
    return items[Number(this.randbelow(BigInt(items.length)))]!;
  }
}
