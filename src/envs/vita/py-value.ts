/**
 * Python values as VitaBench's tools see them. Its tool results are Python `repr`/`str` strings of
 * pydantic models, dicts and lists, and its DB hash is `json.dumps(model_dump(), sort_keys=True,
 * ensure_ascii=False)`: so a float must stay a float (`25.0`, not `25`) and dicts keep key order.
 *
 * A `PyValue` is null, boolean, string, number (a Python int when integral), `PyFloat` (a Python
 * float), array or `Map` (a dict, in insertion order). `parsePy` reads JSON text into one, keeping
 * `12.0` a float and key order as Python's `json.loads` does.
 */
import { floatRepr, PyFloat } from "../tau2/py-json.js";

export { floatRepr, PyFloat };

export type PyValue = null | boolean | string | number | PyFloat | PyValue[] | Map<string, PyValue>;

/** A Python object with its own `repr` (a pydantic model with a custom `__repr__`). */
export interface PyReprable {
  pyRepr(): string;
}

export function isReprable(v: unknown): v is PyReprable {
  return typeof v === "object" && v !== null && typeof (v as PyReprable).pyRepr === "function";
}

/** JSON text → PyValue (floats stay `PyFloat`, objects become ordered `Map`s). */
export function parsePy(text: string): PyValue {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const ws = () => {
    while (i < text.length && " \n\r\t".includes(text[i] as string)) i++;
  };
  const str = (): string => {
    let j = i + 1;
    while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
    if (j >= text.length) fail("unterminated string");
    const s = JSON.parse(text.slice(i, j + 1)) as string;
    i = j + 1;
    return s;
  };
  const value = (): PyValue => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const map = new Map<string, PyValue>();
      ws();
      if (text[i] === "}") return (i++, map);
      for (;;) {
        ws();
        if (text[i] !== '"') fail("expected a key");
        const key = str();
        ws();
        if (text[i] !== ":") fail("expected ':'");
        i++;
        map.set(key, value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return (i++, map);
        else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: PyValue[] = [];
      ws();
      if (text[i] === "]") return (i++, arr);
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return (i++, arr);
        else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith("true", i)) return ((i += 4), true);
    if (text.startsWith("false", i)) return ((i += 5), false);
    if (text.startsWith("null", i)) return ((i += 4), null);
    const m = /^-?(?:0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 64));
    if (!m) return fail("unexpected token");
    i += m[0].length;
    const n = Number(m[0]);
    return m[1] !== undefined || m[2] !== undefined ? new PyFloat(n) : n;
  };
  const out = value();
  ws();
  if (i !== text.length) fail("trailing data");
  return out;
}

/** A plain JavaScript value (e.g. tool-call arguments from JSON.parse) as a PyValue. */
export function fromJs(v: unknown): PyValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean" || typeof v === "string" || typeof v === "number") return v;
  if (v instanceof PyFloat || v instanceof Map) return v as PyValue;
  if (Array.isArray(v)) return v.map(fromJs);
  if (typeof v === "object")
    return new Map(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, fromJs(x)]));
  return String(v);
}

/** Python's `repr(str)`: single quotes unless the text has a ' and no ". */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (ch === quote || ch === "\\") out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (c < 0x20 || c === 0x7f) out += "\\x" + c.toString(16).padStart(2, "0");
    else out += ch;
  }
  return out + quote;
}

/** Python's `repr(x)` for PyValues and objects with their own repr. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return pyStrRepr(v);
  if (typeof v === "number") return Number.isInteger(v) ? String(v) : floatRepr(v);
  if (v instanceof PyFloat) return floatRepr(v.value);
  if (isReprable(v)) return v.pyRepr();
  if (Array.isArray(v)) return "[" + v.map(pyRepr).join(", ") + "]";
  // a dict: parsed task data holds Maps, tool-call arguments from JSON.parse hold plain objects
  const entries = v instanceof Map ? [...v.entries()] : typeof v === "object" ? Object.entries(v) : undefined;
  if (entries) return "{" + entries.map(([k, x]) => `${pyStrRepr(String(k))}: ${pyRepr(x)}`).join(", ") + "}";
  return pyStrRepr(String(v));
}

/** Python's `str(x)` (as an f-string interpolates it): strings as they are, the rest as repr. */
export function pyStr(v: unknown): string {
  return typeof v === "string" ? v : pyRepr(v);
}

/** A Python float's `str`, for model fields typed `float` that may hold an integral value. */
export function fl(x: number): string {
  return floatRepr(x);
}

/**
 * Python's `json.dumps(v, ensure_ascii=False)` (", " and ": " separators), optionally with
 * `sort_keys=True`. Objects with a `toPy()` (models) are dumped as their `model_dump`.
 */
export function pyJsonDumpsUnicode(v: unknown, sortKeys = false): string {
  const parts: string[] = [];
  const write = (x: unknown): void => {
    if (x === null || x === undefined) parts.push("null");
    else if (typeof x === "boolean") parts.push(x ? "true" : "false");
    else if (typeof x === "string") parts.push(jsonString(x));
    else if (typeof x === "number") parts.push(Number.isInteger(x) ? String(x) : floatRepr(x));
    else if (x instanceof PyFloat) parts.push(floatRepr(x.value));
    else if (Array.isArray(x)) {
      parts.push("[");
      x.forEach((item, i) => {
        if (i > 0) parts.push(", ");
        write(item);
      });
      parts.push("]");
    } else if (typeof (x as { toPy?: unknown }).toPy === "function") write((x as { toPy(): unknown }).toPy());
    else if (typeof x === "object") {
      let entries: [string, unknown][] =
        x instanceof Map ? [...(x as Map<string, unknown>).entries()] : Object.entries(x as object);
      if (sortKeys) entries = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      parts.push("{");
      entries.forEach(([k, item], i) => {
        if (i > 0) parts.push(", ");
        parts.push(jsonString(k), ": ");
        write(item);
      });
      parts.push("}");
    } else parts.push(jsonString(String(x)));
  };
  write(v);
  return parts.join("");
}

/** A JSON string as Python writes it with ensure_ascii=False (only controls, quote, backslash escaped). */
function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.charCodeAt(0);
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}
