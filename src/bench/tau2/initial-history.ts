import type { ToolCall } from "../../core/messages.js";
import type { Tau2Message, Tau2TaskView } from "./types.js";

interface UpstreamMessage {
  role: string;
  content?: string | null;
  tool_calls?: Array<{
    id?: string;
    name: string;
    arguments?: Record<string, unknown>;
    requestor?: string;
  }> | null;
  id?: string;
  requestor?: string;
  error?: boolean;
}

/** The task's `initial_state.message_history` as loop messages (upstream shape → ours). */
export function initialHistory(task: Tau2TaskView): Tau2Message[] {
  const state = task.initial_state as { message_history?: UpstreamMessage[] | null } | null | undefined;
  return (state?.message_history ?? []).map((m): Tau2Message => {
    const role =
      m.role === "assistant" || m.role === "user" || m.role === "tool" || m.role === "system"
        ? m.role
        : "user";
    const out: Tau2Message = { role, content: m.content ?? "" };
    if (m.tool_calls && m.tool_calls.length > 0) {
      out.toolCalls = m.tool_calls.map((c, i): ToolCall => ({
        id: c.id ?? `hist_${i}`,
        name: c.name,
        arguments: c.arguments ?? {},
      }));
    }
    if (role === "tool") {
      out.toolCallId = m.id ?? "";
      out.requestor = m.requestor === "user" ? "user" : "assistant";
      if (m.error) out.error = true;
    }
    return out;
  });
}
