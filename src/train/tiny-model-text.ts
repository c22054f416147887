import type { Task } from "../core/task.js";
import { taskKindOf, type TaskKind } from "../envs/task-kind-registry.js";

/**
 * The tiny model's tokenizer corpus for these tasks: when every task's kind registered a `corpus`
 * (toolworld: system, tools, turns and gold trajectories), each kind's text over its own tasks;
 * otherwise the tasks as JSON lines, which any task has.
 */
export function tinyModelCorpus(tasks: readonly Task[]): string {
  const groups = byKind(tasks);
  if (groups.length > 0 && groups.every(([kind]) => kind?.corpus !== undefined)) {
    return groups.map(([kind, ts]) => kind!.corpus!(ts)).join("");
  }
  return tasks.map((t) => JSON.stringify(t)).join("\n") + "\n";
}

/** Whole tokens for the tiny model's vocabulary: what each registered kind asks for, deduplicated. */
export function tinyModelVocabulary(tasks: readonly Task[]): string[] {
  const out = new Set<string>();
  for (const [kind, ts] of byKind(tasks)) for (const w of kind?.vocabulary?.(ts) ?? []) out.add(w);
  return [...out];
}

/** Tasks grouped by their registered kind (undefined: no entry), in first-seen order. */
function byKind(tasks: readonly Task[]): Array<[TaskKind | undefined, Task[]]> {
  const groups = new Map<TaskKind | undefined, Task[]>();
  for (const t of tasks) {
    const k = taskKindOf(t);
    const group = groups.get(k);
    if (group) group.push(t);
    else groups.set(k, [t]);
  }
  return [...groups.entries()];
}
