import type { ToolCall } from "./messages.js";

/** The OpenAI wire shape of one tool call (`message.tool_calls[i]`). */
export interface OpenAIToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

/**
 * Converts OpenAI `tool_calls` into envace calls. Arguments that are not a JSON object are kept as
 * `{ __raw: "<text>" }` so that validation rejects them with a clear message instead of crashing here.
 */
export function fromOpenAIToolCalls(calls: readonly OpenAIToolCall[] | undefined): ToolCall[] {
  return (calls ?? []).map((c) => {
    let args: unknown;
    try {
      args = c.function.arguments.trim() === "" ? {} : JSON.parse(c.function.arguments);
    } catch {
      args = undefined;
    }
    const ok = typeof args === "object" && args !== null && !Array.isArray(args);
    return {
      id: c.id,
      name: c.function.name,
      arguments: ok ? (args as Record<string, unknown>) : { __raw: c.function.arguments },
    };
  });
}

export function toOpenAIToolCalls(calls: readonly ToolCall[]): OpenAIToolCall[] {
  return calls.map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}
