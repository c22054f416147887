import type { Task } from "../core/task.js";
import { taskGenerator } from "../envs/task-generator-registry.js";
import { loadTasks } from "../rollout/load-tasks.js";
import type { TaskSource } from "./config.js";

/**
 * The tasks a config's `tasks` / `eval_tasks` names: JSONL files, or a registered generator
 * (`generator: toolworld` once `src/envs/toolworld/register.ts` is imported).
 */
export async function loadTaskSource(source: TaskSource): Promise<Task[]> {
  if (typeof source === "string") return loadTasks(source);
  if (Array.isArray(source)) return (await Promise.all(source.map((p) => loadTasks(p)))).flat();
  return taskGenerator(source.generator)(source);
}
