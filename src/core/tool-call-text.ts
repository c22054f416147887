import { EnvaceError } from "./errors.js";
import type { ToolCall } from "./messages.js";

/**
 * The text format the policy writes (Qwen/Hermes style, as in the reference):
 *   <think>…</think> free text <tool_call>{"name": …, "arguments": {…}}</tool_call> …
 * Several calls per message are allowed; `<think>` blocks are ignored.
 */
export interface ParsedAssistantText {
  /** The text meant for the user: everything outside `<think>` and `<tool_call>` blocks, trimmed. */
  content: string;
  toolCalls: ToolCall[];
  /** One INVALID_TOOL_CALL_FORMAT error per malformed `<tool_call>` block. */
  errors: EnvaceError[];
}

const THINK_RE = /<think>[\s\S]*?(<\/think>|$)/g;
const CALL_RE = /<tool_call>([\s\S]*?)(<\/tool_call>|$)/g;

export function stripThink(text: string): string {
  return text.replace(THINK_RE, "");
}

export function parseAssistantText(text: string, idPrefix = "call"): ParsedAssistantText {
  const body = stripThink(text);
  const toolCalls: ToolCall[] = [];
  const errors: EnvaceError[] = [];
  let index = 0;
  for (const m of body.matchAll(CALL_RE)) {
    const raw = (m[1] ?? "").trim();
    const id = `${idPrefix}_${index++}`;
    if (m[2] !== "</tool_call>") {
      errors.push(new EnvaceError("INVALID_TOOL_CALL_FORMAT", "unterminated <tool_call> block", { raw }));
      continue;
    }
    const parsed = parseCallJson(raw, id);
    if (parsed instanceof EnvaceError) errors.push(parsed);
    else toolCalls.push(parsed);
  }
  const content = body.replace(CALL_RE, "").trim();
  // A stray closing tag without an opening one is also a format error the actor should see.
  if (/<\/?tool_call>/.test(content)) {
    errors.push(new EnvaceError("INVALID_TOOL_CALL_FORMAT", "stray <tool_call> tag outside a block"));
  }
  return { content, toolCalls, errors };
}

function parseCallJson(raw: string, id: string): ToolCall | EnvaceError {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return new EnvaceError(
      "INVALID_TOOL_CALL_FORMAT",
      `tool call is not valid JSON: ${(e as Error).message}`,
      {
        raw,
      },
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return new EnvaceError("INVALID_TOOL_CALL_FORMAT", "tool call must be a JSON object", { raw });
  }
  const { name, arguments: args } = value as { name?: unknown; arguments?: unknown };
  if (typeof name !== "string" || name.length === 0) {
    return new EnvaceError("INVALID_TOOL_CALL_FORMAT", 'tool call needs a string "name"', { raw });
  }
  const argObj = typeof args === "string" ? tryParseObject(args) : (args ?? {});
  if (typeof argObj !== "object" || argObj === null || Array.isArray(argObj)) {
    return new EnvaceError("INVALID_TOOL_CALL_FORMAT", `"arguments" of ${name} must be a JSON object`, {
      raw,
    });
  }
  return { id, name, arguments: argObj as Record<string, unknown> };
}

function tryParseObject(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

/** Renders calls in the text format, one block per call, compact JSON. */
export function renderToolCalls(calls: ToolCall[]): string {
  return calls
    .map((c) => `<tool_call>${JSON.stringify({ name: c.name, arguments: c.arguments })}</tool_call>`)
    .join("\n");
}

/** Renders a full assistant message (reply text then calls) in the text format. */
export function renderAssistantText(content: string, calls: ToolCall[] = []): string {
  const parts = [content.trim(), renderToolCalls(calls)].filter((p) => p.length > 0);
  return parts.join("\n");
}
