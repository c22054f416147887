/**
 * A small stand-in for the pydantic models of upstream τ²-bench. A `PyType` describes a field's
 * Python type; it drives three things upstream gets from pydantic:
 * - `pyValidate`: lax validation (int from integral float or numeric string, float from int, …)
 *   when loading the DB and when a tool constructs a model from agent arguments, with pydantic's
 *   error text;
 * - `pyDump`: `model_dump()` followed by `json.dumps` — fields in declared order, optional fields
 *   present as null, extra keys dropped, floats printed as floats (`100.0`);
 * - `pyDumpPlain`: the same dump as plain JSON values (for `--dump-db` files).
 *
 * In memory a model is a plain object holding every declared field, a `Dict[str, X]` is a `Map`
 * (insertion order kept, no key coercion), a list is an array.
 */
import { floatRepr, PyDateTime, PyFloat, pyJsonDumps, pyString } from "./py-json.js";
import { PyError, pyRepr, pyTypeName } from "./py-errors.js";

export type PyType =
  | { k: "str" }
  | { k: "int" }
  | { k: "float" }
  | { k: "bool" }
  | { k: "any" }
  | { k: "date" }
  | { k: "datetime" }
  | { k: "literal"; values: readonly string[]; enum?: boolean }
  | { k: "opt"; t: PyType }
  | { k: "list"; t: PyType }
  | { k: "dict"; t: PyType }
  | { k: "model"; name: string; fields: readonly PyField[]; forbidExtra?: boolean }
  | { k: "union"; tag: string; options: readonly Extract<PyType, { k: "model" }>[] };

export interface PyField {
  name: string;
  t: PyType;
  /** The field has a default (`None` unless `default` says otherwise) and may be omitted. */
  optional?: boolean;
  default?: unknown;
}

export type PyModel = Extract<PyType, { k: "model" }>;

export const T = {
  str: { k: "str" } as PyType,
  int: { k: "int" } as PyType,
  float: { k: "float" } as PyType,
  bool: { k: "bool" } as PyType,
  any: { k: "any" } as PyType,
  /** `datetime.date`, held as "YYYY-MM-DD". */
  date: { k: "date" } as PyType,
  /** `datetime.datetime`, held as "YYYY-MM-DDTHH:MM:SS". */
  datetime: { k: "datetime" } as PyType,
  lit: (...values: string[]): PyType => ({ k: "literal", values }),
  /** A `str` Enum: validates like a literal, with pydantic's `enum` error type. */
  enumOf: (...values: string[]): PyType => ({ k: "literal", values, enum: true }),
  opt: (t: PyType): PyType => ({ k: "opt", t }),
  list: (t: PyType): PyType => ({ k: "list", t }),
  dict: (t: PyType): PyType => ({ k: "dict", t }),
  model: (name: string, fields: PyField[]): PyModel => ({ k: "model", name, fields }),
  /** A `BaseModelNoExtra` (extra="forbid"): unknown keys are validation errors. */
  strictModel: (name: string, fields: PyField[]): PyModel => ({
    k: "model",
    name,
    fields,
    forbidExtra: true,
  }),
  union: (tag: string, ...options: PyModel[]): PyType => ({ k: "union", tag, options }),
};

export interface PyValidationIssue {
  loc: (string | number)[];
  type: string;
  msg: string;
  input: unknown;
}

type Entries = [string, unknown][] | null;
function objectEntries(v: unknown): Entries {
  if (v instanceof Map) return [...(v as Map<string, unknown>).entries()];
  if (v !== null && typeof v === "object" && !Array.isArray(v)) return Object.entries(v);
  return null;
}

function literalMsg(values: readonly string[]): string {
  const quoted = values.map((v) => pyRepr(v));
  if (quoted.length === 1) return `Input should be ${quoted[0]}`;
  return `Input should be ${quoted.slice(0, -1).join(", ")} or ${quoted[quoted.length - 1]}`;
}

function validateInto(v: unknown, t: PyType, loc: (string | number)[], issues: PyValidationIssue[]): unknown {
  const bad = (type: string, msg: string) => {
    issues.push({ loc, type, msg, input: v });
    return undefined;
  };
  switch (t.k) {
    case "any":
      return v;
    case "str":
      return typeof v === "string" ? v : bad("string_type", "Input should be a valid string");
    case "bool":
      if (typeof v === "boolean") return v;
      if (v === 0 || v === 1) return v === 1;
      if (typeof v === "string") {
        const s = v.toLowerCase();
        if (["0", "off", "f", "false", "n", "no"].includes(s)) return false;
        if (["1", "on", "t", "true", "y", "yes"].includes(s)) return true;
        return bad("bool_parsing", "Input should be a valid boolean, unable to interpret input");
      }
      return bad("bool_type", "Input should be a valid boolean");
    case "int":
      if (typeof v === "boolean") return v ? 1 : 0;
      if (typeof v === "number") {
        if (Number.isInteger(v)) return v;
        if (!Number.isFinite(v)) return bad("finite_number", "Input should be a finite number");
        return bad("int_from_float", "Input should be a valid integer, got a number with a fractional part");
      }
      if (typeof v === "string") {
        const s = v.trim().replace(/_/g, "");
        if (/^[+-]?\d+$/.test(s)) return Number(s);
        return bad("int_parsing", "Input should be a valid integer, unable to parse string as an integer");
      }
      return bad("int_type", "Input should be a valid integer");
    case "float":
      if (typeof v === "boolean") return v ? 1 : 0;
      if (typeof v === "number") return v;
      if (typeof v === "string") {
        const s = v.trim();
        if (s !== "" && !Number.isNaN(Number(s))) return Number(s);
        return bad("float_parsing", "Input should be a valid number, unable to parse string as a number");
      }
      return bad("float_type", "Input should be a valid number");
    case "literal":
      return typeof v === "string" && t.values.includes(v)
        ? v
        : bad(t.enum ? "enum" : "literal_error", literalMsg(t.values));
    case "date":
      if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
      return bad("date_from_datetime_parsing", "Input should be a valid date");
    case "datetime":
      if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?$/.test(v)) {
        const [day, time] = v.split(/[T ]/) as [string, string | undefined];
        return `${day}T${time ? (time.length === 5 ? `${time}:00` : time) : "00:00:00"}`;
      }
      return bad("datetime_from_date_parsing", "Input should be a valid datetime");
    case "opt":
      return v === null ? null : validateInto(v, t.t, loc, issues);
    case "list":
      if (!Array.isArray(v)) return bad("list_type", "Input should be a valid list");
      return v.map((item, i) => validateInto(item, t.t, [...loc, i], issues));
    case "dict": {
      const entries = objectEntries(v);
      if (!entries) return bad("dict_type", "Input should be a valid dictionary");
      const out = new Map<string, unknown>();
      for (const [key, item] of entries) out.set(key, validateInto(item, t.t, [...loc, key], issues));
      return out;
    }
    case "model": {
      const entries = objectEntries(v);
      if (!entries) return bad("model_type", `Input should be a valid dictionary or instance of ${t.name}`);
      const input = new Map(entries);
      const out: Record<string, unknown> = {};
      for (const f of t.fields) {
        if (!input.has(f.name)) {
          if (f.optional) out[f.name] = structuredClone(f.default ?? null);
          else issues.push({ loc: [...loc, f.name], type: "missing", msg: "Field required", input: v });
          continue;
        }
        out[f.name] = validateInto(input.get(f.name), f.t, [...loc, f.name], issues);
      }
      if (t.forbidExtra) {
        const known = new Set(t.fields.map((f) => f.name));
        for (const [key, x] of input) {
          if (!known.has(key))
            issues.push({
              loc: [...loc, key],
              type: "extra_forbidden",
              msg: "Extra inputs are not permitted",
              input: x,
            });
        }
      }
      return out;
    }
    case "union": {
      const tag = objectEntries(v)?.find(([key]) => key === t.tag)?.[1];
      const option = t.options.find((o) => {
        const field = o.fields.find((f) => f.name === t.tag);
        return field?.t.k === "literal" && typeof tag === "string" && field.t.values.includes(tag);
      });
      if (!option) {
        const names = t.options.map((o) => o.name).join(", ");
        return bad("union_tag_invalid", `Input does not match any of ${names} (by '${t.tag}')`);
      }
      return validateInto(v, option, loc, issues);
    }
  }
}

/** Validates (and converts) `v`; returns the value or the list of problems. */
export function pyValidate(
  v: unknown,
  t: PyType,
): { ok: true; value: unknown } | { ok: false; issues: PyValidationIssue[] } {
  const issues: PyValidationIssue[] = [];
  const value = validateInto(v, t, [], issues);
  return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
}

const PYDANTIC_DOCS_VERSION = "2.11";

/** Constructs a model as `Model(**kwargs)` does upstream: pydantic's ValidationError on bad input. */
export function pyConstruct<R = Record<string, unknown>>(model: PyModel, kwargs: unknown): R {
  const r = pyValidate(kwargs, model);
  if (r.ok) return r.value as R;
  const n = r.issues.length;
  const lines = [`${n} validation error${n === 1 ? "" : "s"} for ${model.name}`];
  for (const issue of r.issues) {
    const input = issue.type === "missing" ? kwargs : issue.input;
    lines.push(issue.loc.join("."));
    lines.push(
      `  ${issue.msg} [type=${issue.type}, input_value=${pyRepr(input)}, input_type=${pyTypeName(input)}]`,
    );
    lines.push(
      `    For further information visit https://errors.pydantic.dev/${PYDANTIC_DOCS_VERSION}/v/${issue.type}`,
    );
  }
  throw new PyError("ValidationError", lines.join("\n"));
}

/**
 * `model_dump()` as a tree for `pyJsonDumps`: Maps in declared field order, floats as `PyFloat`.
 * A value that does not fit its declared type (upstream assigns attributes without validation) is
 * dumped as it is.
 */
export function pyDump(v: unknown, t: PyType): unknown {
  switch (t.k) {
    case "float":
      return typeof v === "number" ? new PyFloat(v) : generic(v);
    case "date":
    case "datetime":
      return typeof v === "string" ? new PyDateTime(v) : generic(v);
    case "opt":
      return v === null || v === undefined ? null : pyDump(v, t.t);
    case "list":
      return Array.isArray(v) ? v.map((x) => pyDump(x, t.t)) : generic(v);
    case "dict": {
      const entries = objectEntries(v);
      if (!entries) return generic(v);
      return new Map(entries.map(([key, x]) => [key, pyDump(x, t.t)]));
    }
    case "model": {
      const entries = objectEntries(v);
      if (!entries) return generic(v);
      const input = new Map(entries);
      return new Map(t.fields.map((f) => [f.name, pyDump(input.get(f.name) ?? null, f.t)]));
    }
    case "union": {
      const tag = objectEntries(v)?.find(([key]) => key === t.tag)?.[1];
      const option = t.options.find((o) => {
        const field = o.fields.find((f) => f.name === t.tag);
        return field?.t.k === "literal" && field.t.values.includes(tag as string);
      });
      return option ? pyDump(v, option) : generic(v);
    }
    default:
      return generic(v);
  }
}

function generic(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(generic);
  if (v instanceof PyFloat || v instanceof PyDateTime) return v;
  const entries = objectEntries(v);
  if (entries) return new Map(entries.map(([key, x]) => [key, generic(x)]));
  return v === undefined ? null : v;
}

/** A `pyDump` tree as plain JSON values (Maps become objects; floats become numbers). */
export function toPlain(tree: unknown): unknown {
  if (tree instanceof PyFloat) return tree.value;
  if (tree instanceof PyDateTime) return tree.iso;
  if (typeof tree === "bigint") return Number(tree);
  if (Array.isArray(tree)) return tree.map(toPlain);
  if (tree instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [key, x] of tree as Map<string, unknown>) out[key] = toPlain(x);
    return out;
  }
  return tree;
}

const sortedFieldsCache = new WeakMap<PyModel, readonly PyField[]>();
function sortedFields(t: PyModel): readonly PyField[] {
  let fields = sortedFieldsCache.get(t);
  if (!fields) {
    fields = [...t.fields].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    sortedFieldsCache.set(t, fields);
  }
  return fields;
}

/**
 * `json.dumps(model_dump(v), sort_keys=sortKeys)` written directly from the typed value, without
 * building the `pyDump` tree: this is what hashing a 3 MB DB runs on.
 */
export function pyDumpJson(v: unknown, t: PyType, sortKeys: boolean): string {
  const out: string[] = [];
  writeTyped(v, t, out, sortKeys);
  return out.join("");
}

function writeTyped(v: unknown, t: PyType, out: string[], sortKeys: boolean): void {
  switch (t.k) {
    case "str":
      if (typeof v === "string") return void out.push(pyString(v));
      break;
    case "float":
      if (typeof v === "number") return void out.push(floatRepr(v));
      break;
    case "date":
    case "datetime":
      if (typeof v === "string") return void out.push(pyString(new PyDateTime(v).str));
      break;
    case "opt":
      if (v === null || v === undefined) return void out.push("null");
      return writeTyped(v, t.t, out, sortKeys);
    case "list":
      if (Array.isArray(v)) {
        out.push("[");
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out.push(", ");
          writeTyped(v[i], t.t, out, sortKeys);
        }
        return void out.push("]");
      }
      break;
    case "dict":
      if (v instanceof Map) {
        let keys = [...(v as Map<string, unknown>).keys()];
        if (sortKeys) keys = keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        out.push("{");
        keys.forEach((key, i) => {
          if (i > 0) out.push(", ");
          out.push(pyString(key), ": ");
          writeTyped((v as Map<string, unknown>).get(key), t.t, out, sortKeys);
        });
        return void out.push("}");
      }
      break;
    case "model":
      if (v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Map)) {
        const obj = v as Record<string, unknown>;
        out.push("{");
        (sortKeys ? sortedFields(t) : t.fields).forEach((f, i) => {
          if (i > 0) out.push(", ");
          out.push(pyString(f.name), ": ");
          writeTyped(obj[f.name] ?? null, f.t, out, sortKeys);
        });
        return void out.push("}");
      }
      break;
    case "union": {
      const tag = (v as Record<string, unknown> | null)?.[t.tag];
      const option = t.options.find((o) => {
        const field = o.fields.find((f) => f.name === t.tag);
        return field?.t.k === "literal" && field.t.values.includes(tag as string);
      });
      if (option) return writeTyped(v, option, out, sortKeys);
      break;
    }
    default:
      break;
  }
  out.push(pyJsonDumps(pyDump(v, t), { sortKeys }));
}

/** A deep copy guided by the type (much faster than structuredClone on Map-heavy DBs). */
export function pyClone<V>(v: V, t: PyType): V {
  switch (t.k) {
    case "str":
    case "int":
    case "float":
    case "bool":
    case "literal":
    case "date":
    case "datetime":
      if (v === null || typeof v !== "object") return v;
      break;
    case "opt":
      return v === null || v === undefined ? v : pyClone(v, t.t);
    case "list":
      if (Array.isArray(v)) return v.map((x: unknown) => pyClone(x, t.t)) as V;
      break;
    case "dict":
      if (v instanceof Map) {
        const out = new Map<string, unknown>();
        for (const [key, x] of v as Map<string, unknown>) out.set(key, pyClone(x, t.t));
        return out as V;
      }
      break;
    case "model":
      if (v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Map)) {
        const obj = v as Record<string, unknown>;
        const out: Record<string, unknown> = {};
        for (const f of t.fields) out[f.name] = pyClone(obj[f.name], f.t);
        return out as V;
      }
      break;
    case "union": {
      const tag = (v as Record<string, unknown> | null)?.[t.tag];
      const option = t.options.find((o) => {
        const field = o.fields.find((f) => f.name === t.tag);
        return field?.t.k === "literal" && field.t.values.includes(tag as string);
      });
      if (option) return pyClone(v, option);
      break;
    }
    default:
      break;
  }
  return structuredClone(v);
}
