/**
 * Python's `round(x, ndigits)` for floats: the exact binary value of `x` is rounded to `ndigits`
 * decimals with ties to even, then converted back to the nearest double. JavaScript's `toFixed`
 * rounds exact ties away from zero (round(0.125, 2) is 0.12 in Python, 0.13 with toFixed), and
 * `Math.round(x * 100) / 100` is wrong whenever `x * 100` is inexact (1.005 -> 1.01 instead of 1.0).
 */
export function pyRound(x: number, ndigits = 2): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const { mantissa, exponent } = decompose(Math.abs(x));
  if (exponent >= 0) return x; // an integer: nothing after the point
  const scale = 10n ** BigInt(ndigits);
  const denom = 1n << BigInt(-exponent);
  const num = mantissa * scale;
  let q = num / denom;
  const twiceRem = (num % denom) * 2n;
  if (twiceRem > denom || (twiceRem === denom && q % 2n === 1n)) q += 1n;
  const magnitude = Number.parseFloat(`${q}e-${ndigits}`); // correctly rounded decimal -> double
  return x < 0 ? -magnitude : magnitude;
}

/** Exact decomposition of a positive finite double into mantissa * 2^exponent (integers). */
function decompose(x: number): { mantissa: bigint; exponent: number } {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & ((1n << 52n) - 1n);
  if (biased === 0) return { mantissa: fraction, exponent: -1074 }; // subnormal
  return { mantissa: fraction | (1n << 52n), exponent: biased - 1075 };
}
