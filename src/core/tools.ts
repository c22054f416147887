import type { EnvaceError } from "./errors.js";

/** A JSON schema, as found in OpenAI function definitions. */
export type JSONSchema = Record<string, unknown>;

/** A tool in OpenAI function shape (name, description, JSON-schema parameters). */
export interface ToolSchema {
  name: string;
  description: string;
  parameters: JSONSchema;
}

/** The outcome of one tool call. Tool errors are data, never exceptions. */
export type ToolResult = { ok: true; content: string } | { ok: false; error: EnvaceError };
