import type { ChatRequest } from "../../../src/core/model.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { MEMORY_HEADER } from "../../../src/testtime/index.js";
import { SUMMARY_SYSTEM } from "../../../src/testtime/summary.js";
import { ORDER_TOOLS, result, call } from "../rollout/fixtures.js";

// The order tools, the tool-call/result writers and the in-memory order environment are the
// rollout tests' own; the test-time tests only add their two-turn task and scripted roles.
export { ORDER_TOOLS as TOOLS, OrderEnv, call, result } from "../rollout/fixtures.js";

/** Two user turns: look up A1 and say its status; then cancel it. */
export function orderTask(): Task {
  return TaskZ.parse({
    id: "order-1",
    domain: "retail",
    system: "You are a retail agent.",
    tools: ORDER_TOOLS,
    user_turns: ["Where is order A1?", "Cancel it."],
    checklists: [
      [
        [
          { question: "looked up A1", rule: { call: "get_order", args: { order_id: "A1" } } },
          { question: "said pending", rule: { reply_contains: ["pending"] } },
        ],
        [{ question: "cancelled A1", rule: { call: "cancel_order", args: { order_id: "A1" } } }],
      ],
    ],
  });
}

export const systemOf = (r: ChatRequest): string =>
  r.messages[0]?.role === "system" ? r.messages[0].content : "";
/** An act request of the committed run: its system message carries the memory note. */
export const isCommitted = (r: ChatRequest): boolean => systemOf(r).includes("Before acting you rehearsed");
export const isSummary = (r: ChatRequest): boolean => systemOf(r) === SUMMARY_SYSTEM;
export const hasNote = (r: ChatRequest): boolean => systemOf(r).includes(MEMORY_HEADER);

/**
 * A well-behaved actor as a function of the request: a user message asks for a tool (lookup, or
 * cancel in turn 2); after a tool result it replies with what it saw.
 */
export function goodActor(r: ChatRequest): string {
  const last = r.messages[r.messages.length - 1]!;
  if (last.role === "user")
    return /Cancel/.test(last.content)
      ? call("cancel_order", { order_id: "A1" })
      : call("get_order", { order_id: "A1" });
  if (last.role === "tool")
    return /cancelled/.test(last.content) ? "Done, A1 is cancelled." : "Order A1 is pending.";
  return "ok";
}

/** A rehearser that imagines what the real OrderEnv would return. */
export function goodRehearser(r: ChatRequest): string {
  const user = r.messages[1]?.content ?? "";
  const at = user.lastIndexOf("Current tool to simulate");
  const current = at >= 0 ? user.slice(at) : (user.split("\n").pop() ?? "");
  return /cancel_order/.test(current)
    ? result({ order_id: "A1", status: "cancelled" })
    : result({ order_id: "A1", status: "pending" });
}
