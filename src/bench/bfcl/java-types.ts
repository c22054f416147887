import { EnvaceError } from "../../core/errors.js";
import { pyFloatOf, pyIntOf } from "../../envs/bfcl/py-parse-number.js";
import { newDict, PyFloat, type PyTypeName, type PyValue } from "../../envs/bfcl/py-value.js";

/**
 * The Java category's argument values are Java source strings; upstream's `java_type_converter`
 * turns them into Python values by regex, defaulting to the string itself when a pattern fails
 * (so the type check then reports `got str`). Ported rule by rule, including its quirks: a
 * `char` never converts (its regex cannot match), collections split elements on every `,`.
 */
export const JAVA_TYPES: Record<string, PyTypeName | "set"> = {
  byte: "int",
  short: "int",
  integer: "int",
  float: "float",
  double: "float",
  long: "int",
  boolean: "bool",
  char: "str",
  Array: "list",
  ArrayList: "list",
  Set: "set",
  HashMap: "dict",
  Hashtable: "dict",
  Queue: "list",
  Stack: "list",
  String: "str",
  any: "str",
};

const notImplemented = (what: string): never => {
  throw new EnvaceError("INVALID_DATA_FILE", `${what} conversion is not implemented (as upstream)`);
};

export function javaTypeConverter(value: string, expected: string, nested?: string): PyValue {
  if (!(expected in JAVA_TYPES)) throw new EnvaceError("INVALID_DATA_FILE", `Unsupported type: ${expected}`);
  switch (expected) {
    case "byte":
    case "short":
    case "integer":
      return /^-?\d+$/.test(value) ? Number(value) : value;
    case "float":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(value)
        ? new PyFloat(Number(value.slice(0, -1)))
        : value;
    case "double":
      return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(value) ? new PyFloat(Number(value)) : value;
    case "long":
      return /^-?\d+[lL]$/.test(value) ? Number(value.slice(0, -1)) : value;
    case "boolean":
      return value === "true" || value === "false" ? value === "true" : value;
    case "char":
      return value; // upstream's pattern `^\'.$\'` never matches, so the string comes back as is
    case "Array":
      return parseArray(value, nested);
    case "ArrayList":
      return parseArrayList(value, nested);
    case "HashMap":
      return parseHashMap(value);
    case "Set":
    case "Hashtable":
      return notImplemented("Set");
    case "Queue":
    case "Stack":
      return notImplemented(expected);
    default:
      return value; // String, any
  }
}

function element(s: string, nested?: string): PyValue {
  if (nested === "char" || nested === "String") return s.slice(1, -1);
  return nested ? javaTypeConverter(s, nested) : parseJavaValue(s);
}

function parseArrayList(input: string, nested?: string): PyValue {
  const asList = /new\s+ArrayList<\w*>\(Arrays\.asList\((.+?)\)\)/.exec(input);
  if (asList) return asList[1]!.split(",").map((e) => element(e.trim(), nested));
  const adds = /new\s+ArrayList<\w*>\(\)\s*\{\{\s*([\s\S]+?)\s*\}\}/.exec(input);
  if (adds) return [...adds[1]!.matchAll(/add\((.+?)\)/g)].map((m) => element(m[1]!.trim(), nested));
  if (/new\s+ArrayList<\w*>\(\)/.test(input)) return [];
  return input;
}

function parseArray(input: string, nested?: string): PyValue {
  const m = /new\s+\w+\[\]\s*\{(.*?)\}/.exec(input);
  if (!m) return input;
  const parts = m[1]!
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  return parts.map((x) => (nested ? javaTypeConverter(x, nested) : parseJavaValue(x)));
}

function parseHashMap(input: string): PyValue {
  const m = /new\s+HashMap<.*?>\s*\(\)\s*\{\s*\{?\s*([\s\S]*?)\s*\}?\s*\}/.exec(input);
  if (m) {
    const out = newDict();
    if (m[1]!.trim()) {
      for (const put of m[1]!.matchAll(/put\("(.*?)",\s*(.*?)\)/g))
        out[put[1]!] = parseJavaValue(put[2]!.trim());
    }
    return out;
  }
  if (/new\s+HashMap<.*?>\s*\(\)/.test(input)) return newDict();
  return input;
}

/** A Java literal without its declared type (upstream `parse_java_value`). */
export function parseJavaValue(s: string): PyValue {
  if (s === "true") return true;
  if (s === "false") return false;
  if (s.startsWith('"') && s.endsWith('"')) return s.slice(1, -1);
  if (/^-?\d+[lL]$/.test(s)) return Number(s.slice(0, -1));
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?[fF]$/.test(s)) return new PyFloat(Number(s.slice(0, -1)));
  return pyIntOf(s) ?? pyFloatOf(s) ?? s;
}
