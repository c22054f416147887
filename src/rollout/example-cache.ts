import type { ToolCall } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { deepEqual } from "../reward/deep-equal.js";

/** The recorded result of a task example identical to `call` (same name, deeply equal arguments). */
export function lookupExample(task: Task, call: ToolCall): string | undefined {
  const hit = task.examples.find((e) => e.name === call.name && deepEqual(e.arguments, call.arguments));
  if (!hit) return undefined;
  return typeof hit.result === "string" ? hit.result : JSON.stringify(hit.result);
}
