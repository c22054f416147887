import type { Message, ToolCall } from "../core/messages.js";
import type { Trace } from "../core/task.js";

export interface TraceCall {
  /** Index of the assistant message that made the call. */
  at: number;
  call: ToolCall;
  /** The recorded result's text; undefined when the trace has no tool message for it. */
  result?: string;
}

/**
 * A recorded conversation as envace messages, with each call paired to its tool message (by
 * `tool_call_id`, or else in order among the calls not yet answered). Calls get ids `t<i>` when the
 * trace has none, so pairing and rendering never depend on the recorder's ids.
 */
export function traceSteps(trace: Trace): { messages: Message[]; calls: TraceCall[]; problems: string[] } {
  const messages: Message[] = [];
  const calls: TraceCall[] = [];
  const problems: string[] = [];
  let n = 0;
  trace.messages.forEach((m, i) => {
    if (m.role === "assistant") {
      const toolCalls = (m.tool_calls ?? []).map((c) => ({
        id: c.id ?? `t${n++}`,
        name: c.name,
        arguments: c.arguments,
      }));
      for (const call of toolCalls) calls.push({ at: messages.length, call });
      messages.push({ role: "assistant", content: m.content, ...(toolCalls.length ? { toolCalls } : {}) });
      return;
    }
    if (m.role === "tool") {
      const open = calls.filter((c) => c.result === undefined);
      const match = m.tool_call_id !== undefined ? open.find((c) => c.call.id === m.tool_call_id) : open[0];
      if (!match) {
        problems.push(`messages.${i}: tool message answers no pending call`);
        return;
      }
      match.result = m.content;
      messages.push({ role: "tool", content: m.content, toolCallId: match.call.id, name: match.call.name });
      return;
    }
    messages.push({ role: "user", content: m.content });
  });
  return { messages, calls, problems };
}
