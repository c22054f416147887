/**
 * Python values as BFCL's checkers see them. The checkers tell `int` from `float` (`type(5.0) ==
 * float`) and `tuple` from `list`, which plain JSON values in JavaScript cannot, so floats and
 * tuples are boxed; ints are plain numbers, `None` is `null`, dicts are plain objects with string
 * keys (every dict in the BFCL data has string keys).
 */
import { finiteFloatRepr } from "../../core/py-float-repr.js";
export class PyFloat {
  constructor(readonly value: number) {}
}

export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

/** Python's `...` where it is data (upstream's long-context watch list ends with one). */
export class PyEllipsis {
  static readonly instance = new PyEllipsis();
  private constructor() {}
}

export type PyDict = { [key: string]: PyValue };
export type PyValue = null | boolean | number | string | PyFloat | PyTuple | PyEllipsis | PyValue[] | PyDict;

export type PyTypeName =
  "NoneType" | "bool" | "int" | "float" | "str" | "list" | "tuple" | "dict" | "ellipsis";

export function pyType(v: PyValue): PyTypeName {
  if (v === null) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "int";
  if (typeof v === "string") return "str";
  if (v instanceof PyFloat) return "float";
  if (v instanceof PyTuple) return "tuple";
  if (v instanceof PyEllipsis) return "ellipsis";
  if (Array.isArray(v)) return "list";
  return "dict";
}

export function isDict(v: PyValue): v is PyDict {
  return pyType(v) === "dict";
}

/** A dict with no prototype, so keys such as `__proto__` are ordinary keys. */
export function newDict(): PyDict {
  return Object.create(null) as PyDict;
}

/**
 * JavaScript objects list integer-like keys (`"3426812"`) first, in numeric order; Python dicts
 * keep insertion order. Dicts built with `setItem` remember their order in a hidden list, and
 * `dictKeys`/`dictEntries` read it, so printed dicts keep Python's order.
 */
const ORDER = Symbol("insertion order");
type Ordered = PyDict & { [ORDER]?: string[] };

export function setItem(d: PyDict, key: string, value: PyValue): void {
  const o = d as Ordered;
  if (!Object.prototype.hasOwnProperty.call(d, key)) {
    if (!o[ORDER]) {
      Object.defineProperty(o, ORDER, { value: Object.keys(d), enumerable: false, writable: true });
    }
    const order = o[ORDER]!;
    const at = order.indexOf(key);
    if (at >= 0) order.splice(at, 1);
    order.push(key);
  }
  d[key] = value;
}

export function delItem(d: PyDict, key: string): void {
  const order = (d as Ordered)[ORDER];
  if (order) {
    const at = order.indexOf(key);
    if (at >= 0) order.splice(at, 1);
  }
  delete d[key];
}

export function dictKeys(d: PyDict): string[] {
  const order = (d as Ordered)[ORDER];
  if (!order) return Object.keys(d);
  const seen = new Set<string>();
  const out: string[] = [];
  for (const k of order) {
    if (Object.prototype.hasOwnProperty.call(d, k) && !seen.has(k)) {
      seen.add(k);
      out.push(k);
    }
  }
  for (const k of Object.keys(d)) if (!seen.has(k)) out.push(k);
  return out;
}

export function dictEntries(d: PyDict): Array<[string, PyValue]> {
  return dictKeys(d).map((k) => [k, d[k]!]);
}

export function dictValues(d: PyDict): PyValue[] {
  return dictKeys(d).map((k) => d[k]!);
}

function numeric(v: PyValue): number | undefined {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v instanceof PyFloat) return v.value;
  return undefined;
}

/** Python's `a == b`: 5 == 5.0 == True-ish numerics, `[1] != (1,)`, dict order ignored. */
export function pyEqual(a: PyValue, b: PyValue): boolean {
  if (a === b) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== undefined || nb !== undefined) return na !== undefined && nb !== undefined && na === nb;
  const ta = pyType(a);
  if (ta !== pyType(b)) return false;
  if (ta === "list") return seqEqual(a as PyValue[], b as PyValue[]);
  if (ta === "tuple") return seqEqual((a as PyTuple).items, (b as PyTuple).items);
  if (ta === "dict") {
    const da = a as PyDict;
    const db = b as PyDict;
    const ka = Object.keys(da);
    if (ka.length !== Object.keys(db).length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(db, k) && pyEqual(da[k]!, db[k]!));
  }
  return false;
}

function seqEqual(a: PyValue[], b: PyValue[]): boolean {
  return a.length === b.length && a.every((x, i) => pyEqual(x, b[i]!));
}

/** Python's `x in list`. */
export function pyIn(x: PyValue, list: readonly PyValue[]): boolean {
  return list.some((y) => pyEqual(x, y));
}

/** Python's `repr(float)`: shortest round-trip digits, scientific below 1e-4 and from 1e16. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  return finiteFloatRepr(x);
}

/** Python's `repr(str)`: single quotes unless the string holds `'` and no `"`. */
export function strRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's `repr(value)` (also `str()` of containers), as error messages print them. */
export function pyRepr(v: PyValue): string {
  switch (pyType(v)) {
    case "NoneType":
      return "None";
    case "bool":
      return v ? "True" : "False";
    case "int":
      return String(v);
    case "float":
      return floatRepr((v as PyFloat).value);
    case "str":
      return strRepr(v as string);
    case "list":
      return `[${(v as PyValue[]).map(pyRepr).join(", ")}]`;
    case "tuple": {
      const items = (v as PyTuple).items;
      return items.length === 1 ? `(${pyRepr(items[0]!)},)` : `(${items.map(pyRepr).join(", ")})`;
    }
    case "ellipsis":
      return "Ellipsis";
    case "dict":
      return `{${dictEntries(v as PyDict)
        .map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`)
        .join(", ")}}`;
  }
}

/** Python's `str(value)`: strings as they are, everything else as `repr`. */
export function pyStr(v: PyValue): string {
  return typeof v === "string" ? v : pyRepr(v);
}

/** Plain JSON for reports (`5.0` becomes 5, tuples become arrays). */
export function toPlain(v: PyValue): unknown {
  if (v instanceof PyFloat) return v.value;
  if (v instanceof PyTuple) return v.items.map(toPlain);
  if (Array.isArray(v)) return v.map(toPlain);
  if (v !== null && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, x] of dictEntries(v as PyDict)) out[k] = toPlain(x);
    return out;
  }
  return v;
}

/** JSON values (as `JSON.parse` gives them) to Python values; non-integers become floats. */
export function fromPlain(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) ? v : new PyFloat(v);
  if (Array.isArray(v)) return v.map(fromPlain);
  if (v instanceof PyFloat || v instanceof PyTuple) return v;
  const out = newDict();
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) setItem(out, k, fromPlain(x));
  return out;
}
