/** Structural equality of JSON values (objects compared key by key, arrays element by element). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== "object") return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => deepEqual(x, bb[i]));
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const ak = Object.keys(ao);
  if (ak.length !== Object.keys(bo).length) return false;
  return ak.every((k) => Object.prototype.hasOwnProperty.call(bo, k) && deepEqual(ao[k], bo[k]));
}

/** True when every key of `expected` is present in `actual` with a deeply equal value. */
export function argsInclude(
  actual: Record<string, unknown>,
  expected: Record<string, unknown> | undefined,
): boolean {
  if (!expected) return true;
  return Object.entries(expected).every(
    ([k, v]) => Object.prototype.hasOwnProperty.call(actual, k) && deepEqual(actual[k], v),
  );
}
