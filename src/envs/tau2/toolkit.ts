/**
 * Tool definitions in upstream's shape. Upstream builds each tool's JSON schema with pydantic from
 * the Python signature and docstring (`Tool.openai_schema`); here each parameter is written out and
 * `toolSchema` assembles the same object (sorted schema keys, titles from names, `title:
 * "parameters"`), so the schemas the agent sees are identical.
 */
import type { JSONSchema, ToolSchema } from "../../core/tools.js";
import { PyError } from "./py-errors.js";

export interface ParamSpec {
  name: string;
  /** The docstring's line for it; absent when the docstring has none (no `description` key). */
  description?: string;
  /** The type part of the property schema, e.g. `{type: "string"}`. */
  schema: JSONSchema;
  /** Present when the Python parameter has a default (then it is not required). */
  default?: { value: unknown };
}

export type Args = Record<string, unknown>;

export interface ToolDef<S> {
  name: string;
  description: string;
  params: ParamSpec[];
  /** `$defs` of the parameters' schema (models referenced by `$ref`). */
  defs?: Record<string, JSONSchema>;
  /** Upstream's `mutates_state` (WRITE tools): replayed when rebuilding state from a history. */
  mutates: boolean;
  /** Runs the tool on the state. Returns the result string or a `pyDump` tree; throws `PyError`. */
  run(state: S, args: Args): unknown;
}

/** A non-tool method callable from a task's `initialization_actions` / `env_assertions`. */
export interface EnvFunctionDef<S> {
  name: string;
  params: { name: string; default?: { value: unknown } }[];
  run(state: S, args: Args): unknown;
}

export interface Toolkit<S> {
  /** The Python class name, used in argument-binding error messages. */
  className: string;
  tools: ToolDef<S>[];
  functions: EnvFunctionDef<S>[];
}

/** Python's `str.title()` as pydantic uses it for field titles ("user_id" -> "User Id"). */
function title(name: string): string {
  return name
    .replace(/_/g, " ")
    .toLowerCase()
    .replace(/(^|[^a-zA-Z])([a-z])/g, (_m, pre: string, ch: string) => pre + ch.toUpperCase());
}

/** Pydantic sorts JSON-schema keys, except the order of `properties`. */
function sortKeys(value: unknown, keepOrder = false): unknown {
  if (Array.isArray(value)) return value.map((v) => sortKeys(v));
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!keepOrder) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v, k === "properties")]));
}

export function toolSchema(
  def: Pick<ToolDef<unknown>, "name" | "description" | "params" | "defs">,
): ToolSchema {
  const properties: Record<string, unknown> = {};
  for (const p of def.params) {
    const prop: Record<string, unknown> = { ...p.schema, title: title(p.name) };
    if (p.description !== undefined) prop.description = p.description;
    if (p.default) prop.default = p.default.value;
    properties[p.name] = prop;
  }
  const required = def.params.filter((p) => !p.default).map((p) => p.name);
  const parameters: Record<string, unknown> = {};
  if (def.defs) parameters.$defs = def.defs;
  parameters.properties = properties;
  if (required.length > 0) parameters.required = required;
  parameters.title = "parameters";
  parameters.type = "object";
  return { name: def.name, description: def.description, parameters: sortKeys(parameters) as JSONSchema };
}

/** A model schema for `$defs`, as pydantic writes it. */
export function modelSchema(
  name: string,
  fields: { name: string; description: string; schema: JSONSchema }[],
): JSONSchema {
  const properties: Record<string, unknown> = {};
  for (const f of fields)
    properties[f.name] = { ...f.schema, description: f.description, title: title(f.name) };
  return { properties, required: fields.map((f) => f.name), title: name, type: "object" };
}

const joinNames = (names: string[]) => {
  const q = names.map((n) => `'${n}'`);
  if (q.length === 1) return q[0];
  if (q.length === 2) return `${q[0]} and ${q[1]}`;
  return `${q.slice(0, -1).join(", ")}, and ${q[q.length - 1]}`;
};

/**
 * Binds keyword arguments as a Python call `Class.method(**kwargs)` does: an unknown keyword or a
 * missing required parameter raises the same TypeError text; absent optional ones get defaults.
 */
export function bindArgs(
  className: string,
  fn: Pick<EnvFunctionDef<unknown>, "name" | "params">,
  args: Args,
): Args {
  const known = new Set(fn.params.map((p) => p.name));
  for (const key of Object.keys(args)) {
    if (!known.has(key))
      throw new PyError("TypeError", `${className}.${fn.name}() got an unexpected keyword argument '${key}'`);
  }
  const missing = fn.params.filter((p) => !p.default && !(p.name in args)).map((p) => p.name);
  if (missing.length > 0) {
    const n = missing.length;
    throw new PyError(
      "TypeError",
      `${className}.${fn.name}() missing ${n} required positional argument${n === 1 ? "" : "s"}: ${joinNames(missing)}`,
    );
  }
  const bound: Args = {};
  for (const p of fn.params) bound[p.name] = p.name in args ? args[p.name] : p.default?.value;
  return bound;
}

/** Common schema fragments. */
export const S = {
  str: { type: "string" } as JSONSchema,
  int: { type: "integer" } as JSONSchema,
  strList: { items: { type: "string" }, type: "array" } as JSONSchema,
  enumOf: (...values: string[]): JSONSchema => ({ enum: values, type: "string" }),
  refOrDictList: (ref: string): JSONSchema => ({
    items: { anyOf: [{ $ref: `#/$defs/${ref}` }, { additionalProperties: true, type: "object" }] },
    type: "array",
  }),
};

export const TRANSFER_DESCRIPTION =
  "Transfer the user to a human agent, with a summary of the user's issue.\n\nOnly transfer if\n -  the user explicitly asks for a human agent\n -  given the policy and the available tools, you cannot solve the user's issue.";

/** `transfer_to_human_agents`, identical in every domain. */
export function transferTool<St>(): ToolDef<St> {
  return {
    name: "transfer_to_human_agents",
    description: TRANSFER_DESCRIPTION,
    params: [{ name: "summary", description: "A summary of the user's issue.", schema: S.str }],
    mutates: false,
    run: () => "Transfer successful",
  };
}
