import { PyFloat } from "./py-value.js";

/** Python's `int(s)` for a string: surrounding whitespace, a sign, `_` between digits. */
export function pyIntOf(s: string): number | undefined {
  const t = s.trim();
  if (!/^[+-]?\d+(?:_\d+)*$/.test(t)) return undefined;
  return Number(t.replace(/_/g, ""));
}

/** Python's `float(s)` for a string (decimal, exponent, `inf`, `nan`). */
export function pyFloatOf(s: string): PyFloat | undefined {
  const t = s.trim();
  if (/^[+-]?(?:inf|infinity)$/i.test(t)) return new PyFloat(t.startsWith("-") ? -Infinity : Infinity);
  if (/^[+-]?nan$/i.test(t)) return new PyFloat(NaN);
  const digits = String.raw`\d+(?:_\d+)*`;
  const re = new RegExp(
    String.raw`^[+-]?(?:${digits}(?:\.(?:${digits})?)?|\.${digits})(?:[eE][+-]?${digits})?$`,
  );
  if (!re.test(t)) return undefined;
  return new PyFloat(Number(t.replace(/_/g, "")));
}
