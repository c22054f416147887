import { floatRepr, pyString } from "../envs/tau2/py-json.js";

/**
 * Python's `json.dumps(value, ensure_ascii=True, indent=0)`, which the reference's rehearsal prompt
 * uses for tools, schemas and arguments: one item per line, no indentation, "," between items and
 * ": " after keys; empty containers stay `[]` / `{}`.
 */
export function pyDumpsIndent0(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return pyString(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : floatRepr(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return `[\n${value.map(pyDumpsIndent0).join(",\n")}\n]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    return `{\n${entries.map(([k, v]) => `${pyString(k)}: ${pyDumpsIndent0(v)}`).join(",\n")}\n}`;
  }
  return pyString(String(value));
}
