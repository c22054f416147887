/**
 * Python's `repr(float)` for a finite number: the shortest digits that round-trip, fixed notation
 * from 1e-4 up to 1e16 (always with a decimal point, `2.0`), scientific outside it (`1e-05`,
 * `1e+16`). `json.dumps` writes floats the same way; the two differ only for NaN and ±infinity,
 * which the callers spell themselves.
 */
export function finiteFloatRepr(x: number): string {
  const abs = Math.abs(x);
  // Fast path: in this range JavaScript also writes the shortest digits in fixed notation.
  if (abs >= 1e-4 && abs < 1e16) {
    const s = String(x);
    return Number.isInteger(x) ? s + ".0" : s;
  }
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expStr] = x.toExponential().split("e") as [string, string];
  const exp = Number(expStr);
  const sign = mant.startsWith("-") ? "-" : "";
  const digits = mant.replace("-", "").replace(".", "");
  const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
  return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}
