import type { ToolCall } from "../../core/messages.js";
import type { ToolResult } from "../../core/tools.js";
import { callOn, type Tau2EnvLike } from "./env-port.js";
import type { Tau2Action, Tau2Message, Tau2Requestor } from "./types.js";

export interface ReplayedCall {
  call: ToolCall;
  requestor: Tau2Requestor;
  result: ToolResult;
}

/**
 * Replays every call of `messages` that reached the environment, in order, on `env` (upstream's
 * `set_state(message_history=…)`). Calls our loop rejected before execution (unknown tool, bad
 * arguments) are skipped: they never touched the state.
 */
export async function replayMessages(
  env: Tau2EnvLike,
  messages: readonly Tau2Message[],
): Promise<ReplayedCall[]> {
  const rejected = new Set(messages.filter((m) => m.role === "tool" && m.rejected).map((m) => m.toolCallId));
  const out: ReplayedCall[] = [];
  for (const m of messages) {
    if ((m.role !== "assistant" && m.role !== "user") || !m.toolCalls) continue;
    const requestor: Tau2Requestor = m.role === "user" ? "user" : "assistant";
    for (const call of m.toolCalls) {
      if (rejected.has(call.id)) continue;
      out.push({ call, requestor, result: await callOn(env, call, requestor) });
    }
  }
  return out;
}

/**
 * Applies gold actions on `env` with each action's requestor, errors included (some gold calls of
 * retail fail by design), as upstream's evaluator builds the gold state: `make_tool_call`, so the
 * domain's `sync_tools` does not run between them.
 */
export async function replayActions(
  env: Tau2EnvLike,
  actions: readonly Tau2Action[],
): Promise<ReplayedCall[]> {
  const out: ReplayedCall[] = [];
  for (const [i, a] of actions.entries()) {
    const call: ToolCall = { id: a.action_id ?? `gold_${i}`, name: a.name, arguments: a.arguments };
    const requestor = a.requestor ?? "assistant";
    const result = env.callSync
      ? env.callSync(call, requestor, { sync: false })
      : await callOn(env, call, requestor);
    out.push({ call, requestor, result });
  }
  return out;
}
