import type { ToolCall } from "../../core/messages.js";
import { pythonEqual } from "./python-equal.js";
import type { Tau2Action, Tau2Message } from "./types.js";

export interface ActionCheck {
  action: Tau2Action;
  met: boolean;
}

/**
 * Upstream `Action.compare_with_tool_call`: same name, and equal values on `compare_args` (when
 * null: on every argument the *predicted* call has). An empty `compare_args` matches on name alone.
 */
export function actionMatches(action: Tau2Action, call: ToolCall): boolean {
  if (action.name !== call.name) return false;
  const keys = action.compare_args ?? Object.keys(call.arguments);
  if (keys.length === 0) return true;
  const pick = (args: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(args).filter(([k]) => keys.includes(k)));
  return pythonEqual(pick(call.arguments), pick(action.arguments));
}

/** Every tool call of the conversation, agent's and user's, in order (upstream `extract_tool_calls`). */
export function trajectoryToolCalls(trajectory: readonly Tau2Message[]): ToolCall[] {
  return trajectory.flatMap((m) =>
    (m.role === "assistant" || m.role === "user") && m.toolCalls ? m.toolCalls : [],
  );
}

/** One check per gold action: was it matched by any call of the conversation? */
export function checkActions(trajectory: readonly Tau2Message[], gold: readonly Tau2Action[]): ActionCheck[] {
  const calls = trajectoryToolCalls(trajectory);
  return gold.map((action) => ({ action, met: calls.some((c) => actionMatches(action, c)) }));
}
