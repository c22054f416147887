import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ToolCall } from "../../core/messages.js";
import type { Example } from "../../core/task.js";
import type { ToolResult } from "../../core/tools.js";
import type { Environment } from "../env.js";

/** Where recorded examples go. */
export interface ExampleSink {
  record(example: Example): void;
}

export interface RecordingOptions {
  /** Record failed calls too, as `"Error: <message>"` (τ²'s wording). Default true: a real error is ground truth as well. */
  includeErrors?: boolean;
}

/**
 * Wraps any environment so that every real call and its real result is recorded as a ground-truth
 * example in the task format (`{name, arguments, result}`). Everything else is passed through.
 */
export function recordingEnvironment(
  env: Environment,
  sink: ExampleSink,
  opts: RecordingOptions = {},
): Environment {
  const includeErrors = opts.includeErrors ?? true;
  const wrapped: Environment = {
    tools: () => env.tools(),
    snapshot: () => env.snapshot(),
    hash: () => env.hash(),
    async call(call: ToolCall): Promise<ToolResult> {
      const result = await env.call(call);
      if (result.ok || includeErrors) sink.record(toExample(call, result));
      return result;
    },
  };
  if (env.close) wrapped.close = () => env.close!();
  return wrapped;
}

/** One call and its result as an example: JSON content is parsed, anything else kept as the string. */
export function toExample(call: Pick<ToolCall, "name" | "arguments">, result: ToolResult): Example {
  return {
    name: call.name,
    arguments: structuredClone(call.arguments),
    result: result.ok ? parseIfJson(result.content) : `Error: ${result.error.message}`,
  };
}

function parseIfJson(text: string): unknown {
  const t = text.trim();
  // Only objects and arrays: "42" or "true" from a tool is text that happens to parse.
  if (!(t.startsWith("{") || t.startsWith("["))) return text;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return text;
  }
}

/** Keeps examples in memory; `toJsonl()` gives one example per line. */
export class ExampleLog implements ExampleSink {
  readonly examples: Example[] = [];
  record(example: Example): void {
    this.examples.push(example);
  }
  toJsonl(): string {
    return this.examples.map((e) => JSON.stringify(e) + "\n").join("");
  }
}

/** Appends each example to a JSONL file as it is recorded, so a crash loses nothing already seen. */
export function jsonlFileSink(path: string): ExampleSink {
  mkdirSync(dirname(path), { recursive: true });
  return {
    record(example: Example) {
      appendFileSync(path, JSON.stringify(example) + "\n");
    },
  };
}
