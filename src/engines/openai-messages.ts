import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from "openai/resources/chat/completions";
import type { Message, ToolCall } from "../core/messages.js";
import type { ToolSchema } from "../core/tools.js";

/**
 * envace messages ↔ OpenAI chat messages. envace keeps tool-call arguments as parsed objects; the
 * OpenAI wire format carries them as JSON strings.
 */
export function toOpenAIMessages(messages: Message[]): ChatCompletionMessageParam[] {
  return messages.map(toOpenAIMessage);
}

function toOpenAIMessage(m: Message): ChatCompletionMessageParam {
  switch (m.role) {
    case "system":
      return { role: "system", content: m.content };
    case "user":
      return { role: "user", content: m.content };
    case "tool": {
      // `name` is not in OpenAI's type but chat templates (ours, vLLM's) may render it.
      const msg = { role: "tool" as const, content: m.content, tool_call_id: m.toolCallId ?? "" };
      return (m.name ? { ...msg, name: m.name } : msg) as ChatCompletionMessageParam;
    }
    case "assistant": {
      if (!m.toolCalls || m.toolCalls.length === 0) return { role: "assistant", content: m.content };
      return {
        role: "assistant",
        content: m.content,
        tool_calls: m.toolCalls.map((c) => ({
          id: c.id,
          type: "function" as const,
          function: { name: c.name, arguments: argumentsToJSON(c.arguments) },
        })),
      };
    }
  }
}

/** Arguments we could not parse on the way in travel back verbatim (see `parseToolArguments`). */
function argumentsToJSON(args: Record<string, unknown>): string {
  const keys = Object.keys(args);
  if (keys.length === 1 && keys[0] === "__raw" && typeof args.__raw === "string") return args.__raw;
  return JSON.stringify(args);
}

export function toOpenAITools(tools: ToolSchema[]): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: "function" as const,
    function: { name: t.name, description: t.description, parameters: t.parameters },
  }));
}

/**
 * Parses OpenAI `arguments` (a JSON string). A string that is not a JSON object is kept raw under
 * `{__raw}` instead of throwing: a malformed call is the agent's mistake, so the caller's schema
 * validation rejects it and the agent sees a tool error.
 */
export function parseToolArguments(json: string): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(json);
    if (v !== null && typeof v === "object" && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // fall through: keep it raw
  }
  return { __raw: json };
}

export function fromOpenAIToolCalls(
  calls: ChatCompletionMessageToolCall[] | undefined,
): ToolCall[] | undefined {
  if (!calls || calls.length === 0) return undefined;
  const out: ToolCall[] = [];
  for (const c of calls) {
    if (c.type !== "function") continue;
    out.push({ id: c.id, name: c.function.name, arguments: parseToolArguments(c.function.arguments) });
  }
  return out.length > 0 ? out : undefined;
}
