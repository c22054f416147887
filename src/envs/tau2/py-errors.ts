/**
 * Python exceptions as the tools raise them upstream. Only the message matters: upstream turns any
 * exception into the tool result `"Error: " + str(exception)`.
 */
export class PyError extends Error {
  /** `ValueError`, `TypeError`, `KeyError`, `ValidationError`, … (for diagnostics only). */
  readonly pyType: string;
  constructor(pyType: string, message: string) {
    super(message);
    this.name = "PyError";
    this.pyType = pyType;
  }
}

export const valueError = (message: string) => new PyError("ValueError", message);
export const typeError = (message: string) => new PyError("TypeError", message);
/** `str(KeyError(key))` is the key's repr. */
export const keyError = (key: unknown) => new PyError("KeyError", pyRepr(key));

/** The Python type name of a JSON-ish value. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "string") return "str";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "bigint") return "int";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (Array.isArray(v)) return "list";
  return "dict";
}

/** Python's `repr` of a JSON-ish value. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") return pyStr(v);
  if (typeof v === "string") {
    const quote = v.includes("'") && !v.includes('"') ? '"' : "'";
    let body = v.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t");
    if (quote === "'") body = body.replace(/'/g, "\\'");
    return quote + body + quote;
  }
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  const entries = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
  return "{" + entries.map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`).join(", ") + "}";
}

/** Python's `str` of a JSON-ish value (as used in f-strings). */
export function pyStr(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") {
    if (Number.isInteger(v) && Math.abs(v) < 1e16) return String(v);
    // Non-integral numbers arriving from JSON are Python floats.
    if (Number.isNaN(v)) return "nan";
    if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
    const s = v.toExponential();
    const [m, e] = s.split("e") as [string, string];
    const exp = Number(e);
    if (exp < -4 || exp >= 16) return `${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
    return String(v);
  }
  return pyRepr(v);
}

/** `x in d` for a dict: unhashable keys raise TypeError, anything else is an exact lookup. */
export function pyIn(map: Map<string, unknown>, key: unknown): boolean {
  if (Array.isArray(key)) throw typeError("unhashable type: 'list'");
  if (key !== null && typeof key === "object") throw typeError("unhashable type: 'dict'");
  return typeof key === "string" && map.has(key);
}

/** Requires a str argument where the Python code calls a str method on it. */
export function requireStrMethod(v: unknown, method: string): string {
  if (typeof v !== "string")
    throw new PyError("AttributeError", `'${pyTypeName(v)}' object has no attribute '${method}'`);
  return v;
}

/** Requires a list where the Python code iterates it and calls list methods. */
export function requireList(v: unknown, method = "count"): unknown[] {
  if (Array.isArray(v)) return v;
  if (typeof v === "string") return [...v]; // str is iterable and has .count in Python
  throw new PyError("AttributeError", `'${pyTypeName(v)}' object has no attribute '${method}'`);
}

/** Requires a number (bool counts, as in Python) for arithmetic with `op`. */
export function requireNumber(v: unknown, op: string, other: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  throw typeError(`unsupported operand type(s) for ${op}: '${pyTypeName(v)}' and '${other}'`);
}

/** Python's `sorted` on a list of strings (code-point order). */
export function pySortedStrings(items: unknown[]): unknown[] {
  if (items.some((x) => typeof x !== "string")) {
    const types = new Set(items.map(pyTypeName));
    if (types.size > 1) {
      const [a, b] = [...types] as [string, string];
      throw typeError(`'<' not supported between instances of '${b}' and '${a}'`);
    }
    return [...items].sort((a, b) => Number(a) - Number(b));
  }
  return [...(items as string[])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
