/**
 * Python-compatible JSON: an order-preserving parser (JSON objects become `Map`s, so numeric-string
 * keys such as retail item ids keep the file's order) and a serializer producing exactly what
 * Python's `json.dumps` writes (", " / ": " separators, ASCII escapes, float repr, `100.0`).
 *
 * Values given to `pyJsonDumps` may contain `PyFloat` (a Python float, printed with a decimal point
 * even when integral), `bigint` (a Python int), numbers (an int when integral, else a float),
 * strings, booleans, null, arrays, `Map`s and plain objects.
 */
import { finiteFloatRepr } from "../../core/py-float-repr.js";

export class PyFloat {
  constructor(readonly value: number) {}
  toJSON(): number {
    return this.value;
  }
}

/**
 * A `datetime.date` or `datetime.datetime` from a `model_dump()`. Upstream hashes and tool results
 * serialise it with `json.dumps(default=str)` (`str`: "2025-01-20 14:30:00"); a JSON-mode dump
 * (`--dump-db`) writes the ISO form ("2025-01-20T14:30:00").
 */
export class PyDateTime {
  constructor(readonly iso: string) {}
  get str(): string {
    return this.iso.replace("T", " ");
  }
  toJSON(): string {
    return this.iso;
  }
}

export interface PyJsonOptions {
  sortKeys?: boolean;
  /**
   * `indent=0` as Python writes it (the reference's rehearsal prompt uses it): one item per line, no
   * indentation, "," ending each line; empty containers stay `[]` / `{}`.
   */
  indent?: 0;
}

interface Layout {
  sortKeys: boolean;
  /** Between two items. */
  sep: string;
  /** After an opening and before a closing bracket of a non-empty container. */
  pad: string;
}

export function pyJsonDumps(value: unknown, options: PyJsonOptions = {}): string {
  const parts: string[] = [];
  const lines = options.indent === 0;
  write(value, parts, {
    sortKeys: options.sortKeys ?? false,
    sep: lines ? ",\n" : ", ",
    pad: lines ? "\n" : "",
  });
  return parts.join("");
}

/** Sorted-key Python-style JSON; hashing uses it so key order never matters. */
export function canonicalJson(value: unknown): string {
  return pyJsonDumps(value, { sortKeys: true });
}

function write(value: unknown, out: string[], layout: Layout): void {
  if (value === null || value === undefined) out.push("null");
  else if (typeof value === "string") out.push(pyString(value));
  else if (typeof value === "boolean") out.push(value ? "true" : "false");
  else if (typeof value === "bigint") out.push(value.toString());
  else if (typeof value === "number") out.push(Number.isInteger(value) ? intRepr(value) : floatRepr(value));
  else if (value instanceof PyFloat) out.push(floatRepr(value.value));
  else if (value instanceof PyDateTime) out.push(pyString(value.str));
  else if (Array.isArray(value)) {
    out.push("[", value.length > 0 ? layout.pad : "");
    value.forEach((item, i) => {
      if (i > 0) out.push(layout.sep);
      write(item, out, layout);
    });
    out.push(value.length > 0 ? layout.pad : "", "]");
  } else if (typeof value === "object") {
    let entries: [string, unknown][] =
      value instanceof Map ? [...(value as Map<string, unknown>).entries()] : Object.entries(value);
    if (layout.sortKeys) entries = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    out.push("{", entries.length > 0 ? layout.pad : "");
    entries.forEach(([k, v], i) => {
      if (i > 0) out.push(layout.sep);
      out.push(pyString(String(k)), ": ");
      write(v, out, layout);
    });
    out.push(entries.length > 0 ? layout.pad : "", "}");
  } else out.push(pyString(String(value)));
}

function intRepr(x: number): string {
  // Integral doubles beyond 2^53 print in full in Python (ints are exact); BigInt gives the digits.
  return Math.abs(x) < 1e21 ? String(x) : BigInt(x).toString();
}

/** A float as Python's `json.dumps` writes it: `repr(float)`, with NaN and ±Infinity spelt as JSON extensions. */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (!Number.isFinite(x)) return x > 0 ? "Infinity" : "-Infinity";
  return finiteFloatRepr(x);
}

const ESCAPES: Record<string, string> = {
  '"': '\\"',
  "\\": "\\\\",
  "\n": "\\n",
  "\r": "\\r",
  "\t": "\\t",
  "\b": "\\b",
  "\f": "\\f",
};

/** A JSON string literal as Python writes it with ensure_ascii=True. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

export function pyString(s: string): string {
  if (PLAIN.test(s)) return '"' + s + '"';
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    const code = s.charCodeAt(i);
    const esc = ESCAPES[ch];
    if (esc !== undefined) out += esc;
    else if (code < 0x20 || code > 0x7e) out += "\\u" + code.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/** Parses JSON text keeping object key order (objects become `Map<string, unknown>`). */
export function parseJsonOrdered(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };
  const value = (): unknown => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const map = new Map<string, unknown>();
      ws();
      if (text[i] === "}") {
        i++;
        return map;
      }
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
        else if (text[i] === "}") {
          i++;
          return map;
        } else fail("expected ',' or '}'");
      }
    }
    if (c === "[") {
      i++;
      const arr: unknown[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") {
          i++;
          return arr;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith("true", i)) return ((i += 4), true);
    if (text.startsWith("false", i)) return ((i += 5), false);
    if (text.startsWith("null", i)) return ((i += 4), null);
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 40));
    if (!m) return fail("unexpected token");
    i += m[0].length;
    return Number(m[0]);
  };
  const str = (): string => {
    // Find the closing quote, then let JSON.parse decode escapes in one go.
    let j = i + 1;
    let hasEscape = false;
    while (j < text.length && text[j] !== '"') {
      if (text[j] === "\\") {
        hasEscape = true;
        j += 2;
      } else j++;
    }
    if (j >= text.length) fail("unterminated string");
    const raw = text.slice(i, j + 1);
    i = j + 1;
    return hasEscape ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  };
  const result = value();
  ws();
  if (i !== text.length) fail("unexpected trailing data");
  return result;
}
