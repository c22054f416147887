import type { ToolSchema } from "../core/tools.js";
import { TaskZ, type Example, type Task } from "../core/task.js";

/**
 * A `Task` for a live conversation (no scripted user turns, no checklists): what rehearsal needs
 * to know about the agent's world — its tools, its system prompt and, optionally, recorded calls
 * with their real results as few-shot evidence for the rehearse role.
 */
export function liveTask(opts: {
  tools: ToolSchema[];
  system?: string;
  examples?: Example[];
  id?: string;
  domain?: string;
}): Task {
  return TaskZ.parse({
    id: opts.id ?? "live",
    domain: opts.domain ?? "live",
    system: opts.system ?? "",
    tools: opts.tools,
    user_turns: ["(live conversation)"],
    examples: opts.examples ?? [],
  });
}
