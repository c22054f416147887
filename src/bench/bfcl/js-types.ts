import { EnvaceError } from "../../core/errors.js";
import { pyFloatOf, pyIntOf } from "../../envs/bfcl/py-parse-number.js";
import { newDict, PyFloat, type PyTypeName, type PyValue } from "../../envs/bfcl/py-value.js";

/**
 * The JavaScript category's argument values are JavaScript source strings; upstream's
 * `js_type_converter` turns them into Python values by regex, defaulting to the string itself.
 * Ported rule by rule, quirks included (elements split on every `,`, a failed array parse
 * returns the source string).
 */
export const JS_TYPES: Record<string, PyTypeName> = {
  String: "str",
  integer: "int",
  float: "float",
  Bigint: "int",
  Boolean: "bool",
  dict: "dict",
  array: "list",
  any: "str",
};

class Unsupported extends EnvaceError {}

export function jsTypeConverter(value: string, expected: string, nested?: string): PyValue {
  if (!(expected in JS_TYPES)) throw new Unsupported("INVALID_DATA_FILE", `Unsupported type: ${expected}`);
  switch (expected) {
    case "String":
      if (
        !(value.startsWith('"') && value.endsWith('"')) &&
        !(value.startsWith("'") && value.endsWith("'"))
      ) {
        return value;
      }
      return value.slice(1, -1);
    case "integer":
      return /^-?\d+$/.test(value) ? Number(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?$/.test(value) ? new PyFloat(Number(value)) : value;
    case "Bigint":
      return /^-?\d+n$/.test(value) ? Number(value.slice(0, -1)) : value;
    case "Boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "dict":
      return parseDict(value.trim());
    case "array":
      return parseArray(value.trim(), nested);
    default:
      return value; // any
  }
}

const ARRAY_2D = /^(?:\[\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\]|\bnew\s+Array\(\s*\[.*?\]\s*(,\s*\[.*?\]\s*)*\))/;
const ARRAY_1D = /^(?:\[(.*?)\]|\bnew\s+Array\((.*?)\))/;

function parseArray(code: string, nested?: string): PyValue {
  // Upstream wraps the whole parse in a bare `except: return code`.
  try {
    const m2 = ARRAY_2D.exec(code);
    if (m2) {
      const inner = [...m2[0].matchAll(/\[(.*?)\]/g)].map((m) => m[1]!);
      return inner.map((s, idx) => {
        let t = s.trim();
        if (idx === 0 && t.startsWith("[")) t = t.slice(1);
        return t.split(",").map((e) => parseJsValue(e.trim()));
      });
    }
    const m1 = ARRAY_1D.exec(code);
    if (!m1) return code;
    const body = m1[1] ?? m1[2];
    const elements = body !== undefined && body.trim() ? body.trim().split(",") : [];
    if (nested) {
      return elements.map((e) => {
        const t = e.trim();
        return t.startsWith("'") || t.startsWith('"')
          ? jsTypeConverter(t, nested, "String")
          : jsTypeConverter(t, nested);
      });
    }
    return elements.map((e) => parseJsValue(e.trim()));
  } catch (e) {
    if (e instanceof Unsupported) return code;
    throw e;
  }
}

function parseDict(code: string): PyValue {
  if (code === "{}") return newDict();
  const m = /^\{(.*?)\}/.exec(code);
  if (!m) return code;
  const out = newDict();
  for (const pair of m[1]!.matchAll(/([^:]+):\s*(.*?)(?:,\s*(?=[^,]+:)|$)/g)) {
    const key = stripChars(pair[1]!.trim(), "'\"");
    const value = pair[2]!.trim();
    if (value.startsWith("[") && value.endsWith("]")) out[key] = parseArray(value, undefined);
    else if (value.startsWith("{") && value.endsWith("}")) out[key] = parseDict(value);
    else out[key] = parseJsValue(stripChars(value, "'\""));
  }
  return out;
}

/** Python's `str.strip(chars)`. */
function stripChars(s: string, chars: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && chars.includes(s[a]!)) a++;
  while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/** A JavaScript literal without its declared type (upstream `parse_js_value`). */
export function parseJsValue(raw: string): PyValue {
  const s = raw.trim();
  if (s === "true") return true;
  if (s === "false") return false;
  if ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))) return s.slice(1, -1);
  return pyIntOf(s) ?? pyFloatOf(s) ?? s;
}
