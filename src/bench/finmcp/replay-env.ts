/**
 * FinMCP-Bench's tools for one sample, replayed from its recorded ground truth (the live MCP
 * servers behind the benchmark are a vendor's). A call whose name and arguments (key order aside)
 * match a recorded call gets the recorded result, repeated calls the next recorded result of the
 * same key; any other call of a known tool is an error the agent sees; an unknown tool is
 * TOOL_NOT_AVAILABLE. `recordedCalls()` gives the triples a rehearsing policy uses as evidence.
 */
import type { ToolCall } from "../../core/messages.js";
import type { ToolResult, ToolSchema } from "../../core/tools.js";
import { EnvaceError } from "../../core/errors.js";
import { canonicalJson } from "../../envs/tau2/py-json.js";
import type { Environment } from "../../envs/env.js";
import type { FinMessage, FinSample, FinToolCall } from "./types.js";

export function callArguments(call: FinToolCall): Record<string, unknown> {
  const a = call.function.arguments;
  if (typeof a !== "string") return a;
  try {
    const v: unknown = JSON.parse(a || "{}");
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export interface RecordedCall {
  name: string;
  arguments: Record<string, unknown>;
  result: string;
}

/** Pairs each assistant tool call with its tool message (by tool_call_id, else by position). */
export function recordedCalls(messages: readonly FinMessage[]): RecordedCall[] {
  const out: RecordedCall[] = [];
  messages.forEach((m, i) => {
    const calls = m.tool_calls ?? [];
    if (m.role !== "assistant" || calls.length === 0) return;
    const replies: FinMessage[] = [];
    for (let j = i + 1; j < messages.length && messages[j]!.role === "tool"; j++) replies.push(messages[j]!);
    calls.forEach((c, k) => {
      const reply = replies.find((r) => c.id !== undefined && r.tool_call_id === c.id) ?? replies[k];
      if (reply)
        out.push({ name: c.function.name, arguments: callArguments(c), result: reply.content ?? "" });
    });
  });
  return out;
}

const key = (name: string, args: unknown) => `${name}\u0000${canonicalJson(args)}`;

export class FinReplayEnvironment implements Environment {
  private readonly byKey = new Map<string, string[]>();
  private readonly used = new Map<string, number>();
  private readonly schemas: ToolSchema[];
  readonly recorded: RecordedCall[];

  constructor(sample: FinSample, schemas?: readonly ToolSchema[]) {
    this.recorded = recordedCalls(sample.messages);
    for (const r of this.recorded) {
      const k = key(r.name, r.arguments);
      this.byKey.set(k, [...(this.byKey.get(k) ?? []), r.result]);
    }
    const names = [...new Set(this.recorded.map((r) => r.name))];
    this.schemas = schemas ? [...schemas] : names.map((n) => inferredSchema(n, this.recorded));
  }

  tools(): ToolSchema[] {
    return this.schemas;
  }

  recordedCalls(): RecordedCall[] {
    return this.recorded;
  }

  async call(call: ToolCall): Promise<ToolResult> {
    if (!this.schemas.some((s) => s.name === call.name))
      return { ok: false, error: new EnvaceError("TOOL_NOT_AVAILABLE", `Tool '${call.name}' not found.`) };
    const k = key(call.name, call.arguments ?? {});
    const results = this.byKey.get(k);
    if (!results)
      return {
        ok: false,
        error: new EnvaceError(
          "TOOL_EXECUTION_ERROR",
          `no recorded result of ${call.name} for these arguments`,
        ),
      };
    const n = this.used.get(k) ?? 0;
    this.used.set(k, n + 1);
    return { ok: true, content: results[Math.min(n, results.length - 1)] as string };
  }

  snapshot(): unknown {
    return Object.fromEntries(this.used);
  }

  hash(): string {
    return canonicalJson(Object.fromEntries(this.used));
  }
}

/** A schema from the recorded calls, when the vendor's MCP schema file is not given. */
function inferredSchema(name: string, recorded: readonly RecordedCall[]): ToolSchema {
  const properties: Record<string, unknown> = {};
  for (const r of recorded)
    if (r.name === name)
      for (const [k, v] of Object.entries(r.arguments))
        properties[k] = {
          type: Array.isArray(v)
            ? "array"
            : v === null
              ? "null"
              : typeof v === "object"
                ? "object"
                : typeof v,
        };
  return {
    name,
    description: `${name} (schema inferred from recorded calls)`,
    parameters: { type: "object", properties },
  };
}
