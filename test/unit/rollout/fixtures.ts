import { EnvaceError } from "../../../src/core/errors.js";
import type { ToolCall } from "../../../src/core/messages.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import type { ToolResult } from "../../../src/core/tools.js";
import type { Environment } from "../../../src/envs/env.js";

export const ORDER_TOOLS = [
  {
    name: "get_order",
    description: "Look up an order",
    parameters: {
      type: "object",
      properties: { order_id: { type: "string" } },
      required: ["order_id"],
      additionalProperties: false,
    },
  },
  {
    name: "cancel_order",
    description: "Cancel a pending order",
    parameters: {
      type: "object",
      properties: { order_id: { type: "string" } },
      required: ["order_id"],
      additionalProperties: false,
    },
  },
];

/** Two user turns; turn 0 needs a lookup and a reply with the status, turn 1 a cancel. */
export function orderTask(overrides: Record<string, unknown> = {}): Task {
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
        [
          { question: "cancelled A1", rule: { call: "cancel_order", args: { order_id: "A1" } }, weight: 2 },
          { question: "no second lookup", rule: { forbid: "get_order" } },
        ],
      ],
    ],
    examples: [{ name: "get_order", arguments: { order_id: "A1" }, result: { status: "pending" } }],
    ...overrides,
  });
}

export const call = (name: string, args: Record<string, unknown>): string =>
  `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;
export const result = (value: unknown): string =>
  `<execution_result>\n${JSON.stringify(value)}\n</execution_result>`;

/** A tiny real environment: orders in memory. */
export class OrderEnv implements Environment {
  orders: Record<string, string> = { A1: "pending" };
  tools() {
    return ORDER_TOOLS;
  }
  async call(c: ToolCall): Promise<ToolResult> {
    const id = String(c.arguments.order_id);
    if (!(id in this.orders))
      return { ok: false, error: new EnvaceError("TOOL_EXECUTION_ERROR", `no order ${id}`) };
    if (c.name === "cancel_order") this.orders[id] = "cancelled";
    return { ok: true, content: JSON.stringify({ order_id: id, status: this.orders[id] }) };
  }
  snapshot() {
    return { ...this.orders };
  }
  hash() {
    return JSON.stringify(this.orders);
  }
}
