import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { EnvaceError } from "./errors.js";
import type { ToolCall } from "./messages.js";
import type { ToolSchema } from "./tools.js";

// One compiler for the process; compiled validators are cached per schema object.
const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const cache = new WeakMap<object, ValidateFunction>();

function compile(schema: Record<string, unknown>): ValidateFunction {
  let v = cache.get(schema);
  if (!v) {
    v = ajv.compile(schema);
    cache.set(schema, v);
  }
  return v;
}

function describe(err: ErrorObject): string {
  const where = err.instancePath === "" ? "arguments" : `arguments${err.instancePath.replace(/\//g, ".")}`;
  if (err.keyword === "additionalProperties") {
    return `${where}: unexpected property "${String(err.params.additionalProperty)}"`;
  }
  return `${where} ${err.message ?? "is invalid"}`;
}

/**
 * Checks a call against the whitelist of tools and the tool's JSON schema. Returns `undefined` when
 * the call is valid, else a typed error (TOOL_NOT_AVAILABLE or INVALID_PARAMETERS with every schema
 * error listed in `details.errors`).
 */
export function validateToolCall(call: ToolCall, tools: readonly ToolSchema[]): EnvaceError | undefined {
  const tool = tools.find((t) => t.name === call.name);
  if (!tool) {
    return new EnvaceError(
      "TOOL_NOT_AVAILABLE",
      `tool "${call.name}" is not available; available tools: ${tools.map((t) => t.name).join(", ")}`,
    );
  }
  if ("__raw" in call.arguments && Object.keys(call.arguments).length === 1) {
    return new EnvaceError("INVALID_PARAMETERS", `arguments of ${call.name} are not a JSON object`, {
      errors: ["arguments must be a JSON object"],
    });
  }
  let validate: ValidateFunction;
  try {
    validate = compile(tool.parameters);
  } catch (e) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `tool ${tool.name} has an invalid JSON schema: ${(e as Error).message}`,
    );
  }
  if (validate(call.arguments)) return undefined;
  const errors = (validate.errors ?? []).map(describe);
  return new EnvaceError("INVALID_PARAMETERS", `invalid arguments for ${call.name}: ${errors.join("; ")}`, {
    errors,
  });
}
