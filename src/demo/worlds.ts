import type { Task } from "../core/task.js";

/** A toolworld task's world (domain and world seed): the tasks whose logs describe the same data. */
export function worldKey(t: Task): string | undefined {
  return t.env?.kind === "toolworld" ? `${t.domain}@${t.env.seed}` : undefined;
}

/** Tasks by world: the logs a rehearser may learn a world from, or a note may borrow attempts from. */
export function tasksByWorld(tasks: readonly Task[]): Map<string, Task[]> {
  const out = new Map<string, Task[]>();
  for (const t of tasks) {
    const key = worldKey(t);
    if (key) out.set(key, [...(out.get(key) ?? []), t]);
  }
  return out;
}

/** The other tasks of `task`'s world in `byWorld` (none for a task outside any toolworld). */
export function worldmates(byWorld: ReadonlyMap<string, readonly Task[]>, task: Task): Task[] {
  return (byWorld.get(worldKey(task) ?? "") ?? []).filter((t) => t.id !== task.id);
}
