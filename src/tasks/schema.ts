import { z } from "zod";
import { TaskZ } from "../core/task.js";

/**
 * The task format as JSON Schema (draft 2020-12), generated from the zod schema so the two never
 * drift. `io: "input"` describes what a file may contain (fields with defaults are optional).
 */
export function taskJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(TaskZ, { io: "input" }),
    title: "envace task (one line of a JSONL task file)",
  } as Record<string, unknown>;
}
