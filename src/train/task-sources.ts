import type { Task } from "../core/task.js";
import { generateTasks, TOOLWORLD_DOMAINS } from "../envs/toolworld/index.js";
import { loadTasks } from "../rollout/load-tasks.js";
import type { TaskSource } from "./config.js";

/** The tasks a config's `tasks` / `eval_tasks` names: JSONL files, or generated toolworld tasks. */
export async function loadTaskSource(source: TaskSource): Promise<Task[]> {
  if (typeof source === "string") return loadTasks(source);
  if (Array.isArray(source)) return (await Promise.all(source.map((p) => loadTasks(p)))).flat();
  const domains = source.domains ?? TOOLWORLD_DOMAINS;
  return domains.flatMap((domain) =>
    generateTasks({ domain, seed: source.seed, count: source.count, split: source.split }),
  );
}

/** Toolworld domains a source uses (for the tiny model's whole-token vocabulary), or none. */
export function toolworldDomainsOf(tasks: readonly Task[]): string[] {
  return [...new Set(tasks.flatMap((t) => (t.env?.kind === "toolworld" ? [t.env.domain ?? t.domain] : [])))];
}
