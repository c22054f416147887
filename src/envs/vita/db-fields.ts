/**
 * Typed readers of a task's `environment` values, as pydantic would accept them (lax mode: an int
 * where a float is declared, `4.0` where an int is). A value of the wrong shape is a typed
 * `INVALID_DATA_FILE` error naming its path, never a silent default.
 */
import { EnvaceError } from "../../core/errors.js";
import type { Registries } from "./db.js";
import type { Location } from "./models.js";
import { PyFloat, type PyValue } from "./py-value.js";

export const bad = (path: string, what: string): never => {
  throw new EnvaceError("INVALID_DATA_FILE", `VitaBench environment: ${path} ${what}`);
};

export function field(obj: PyValue, key: string, path: string): PyValue | undefined {
  if (!(obj instanceof Map)) return bad(path, "must be an object");
  return obj.get(key);
}

export const num = (v: PyValue | undefined, path: string): number =>
  typeof v === "number" ? v : v instanceof PyFloat ? v.value : bad(path, "must be a number");
export const optNum = (v: PyValue | undefined, path: string): number | null =>
  v === null || v === undefined ? null : num(v, path);
export const int = (v: PyValue | undefined, path: string): number => {
  const n = num(v, path);
  return Number.isInteger(n) ? n : bad(path, "must be an integer");
};
/** `Optional[int] = 0`: absent is 0, null stays null. */
export const optQuantity = (v: PyValue | undefined, path: string): number | null =>
  v === undefined ? 0 : v === null ? null : int(v, path);
export const str = (v: PyValue | undefined, path: string): string =>
  typeof v === "string" ? v : bad(path, "must be a string");
export const optStr = (v: PyValue | undefined, path: string, dflt: string | null): string | null =>
  v === undefined ? dflt : v === null ? null : str(v, path);
export const bool = (v: PyValue | undefined, path: string): boolean =>
  typeof v === "boolean" ? v : bad(path, "must be a boolean");
export const list = (v: PyValue | undefined, path: string): PyValue[] =>
  Array.isArray(v) ? v : bad(path, "must be a list");
export const strList = (v: PyValue | undefined, path: string): string[] =>
  list(v, path).map((x, i) => str(x, `${path}[${i}]`));
export const dict = (v: PyValue | undefined, path: string): Map<string, PyValue> =>
  v instanceof Map ? v : bad(path, "must be an object");

/** A `Location`, registered under its address as upstream's constructor registers it. */
export function location(v: PyValue | undefined, path: string, reg: Registries): Location {
  return reg.location(
    str(field(v ?? null, "address", path), `${path}.address`),
    num(field(v ?? null, "longitude", path), `${path}.longitude`),
    num(field(v ?? null, "latitude", path), `${path}.latitude`),
  );
}

/** A `Dict[str, Model]` field: absent is empty; each entry parsed in the file's order. */
export function table<T>(
  v: PyValue | undefined,
  path: string,
  each: (x: PyValue, p: string) => T,
): Map<string, T> {
  const out = new Map<string, T>();
  if (v === undefined) return out;
  for (const [k, x] of dict(v, path)) out.set(k, each(x, `${path}.${k}`));
  return out;
}
