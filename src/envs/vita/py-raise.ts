/**
 * A Python exception raised inside a VitaBench tool. Upstream's `@is_tool` wrapper returns an
 * `AssertionError`'s message as the tool's ordinary result; any other exception reaches the agent
 * as `"Error: <message>"` with the tool message's `error` flag set.
 */
export type PyExceptionKind =
  "AssertionError" | "ValueError" | "TypeError" | "IndexError" | "KeyError" | "AttributeError";

export class PyRaise extends Error {
  constructor(
    readonly kind: PyExceptionKind,
    message: string,
  ) {
    super(message);
    this.name = kind;
  }
}

/** Python's `assert cond, message`. */
export function pyAssert(cond: unknown, message: string): asserts cond {
  if (!cond) throw new PyRaise("AssertionError", message);
}

export const valueError = (message: string): never => {
  throw new PyRaise("ValueError", message);
};

/** Python's type name as `type(x)` prints it inside `<class '...'>`. */
export function pyTypeName(v: unknown): string {
  if (v === null || v === undefined) return "NoneType";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "string") return "str";
  if (typeof v === "number") return Number.isInteger(v) ? "int" : "float";
  if (Array.isArray(v)) return "list";
  return "dict";
}
