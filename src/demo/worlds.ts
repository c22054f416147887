import { canonicalJson } from "../core/canonical-json.js";
import type { Example, Task } from "../core/task.js";

/**
 * A call's identity (name and canonical arguments): evidence lent from other tasks' logs never
 * holds a call identical to the one rehearsed, at evaluation as in SFT.
 */
export function callKey(e: Pick<Example, "name" | "arguments">): string {
  return `${e.name} ${canonicalJson(e.arguments)}`;
}

/** A toolworld task's world (domain, world seed, drift): the tasks whose logs describe the same data. */
export function worldKey(t: Task): string | undefined {
  if (t.env?.kind !== "toolworld") return undefined;
  const drift = t.env.drift ? `~${t.env.drift.seed}/${t.env.drift.share}` : "";
  return `${t.domain}@${t.env.seed}${drift}`;
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

/**
 * The logged calls of `lenders`, in their order, each call once and none of the calls in `own`:
 * the evidence a task is lent from other tasks of its world (at evaluation and in SFT alike).
 */
export function lentCalls(lenders: readonly Task[], own: ReadonlySet<string>): Example[] {
  const seen = new Set<string>();
  const out: Example[] = [];
  for (const e of lenders.flatMap((o) => o.examples)) {
    const key = callKey(e);
    if (own.has(key) || seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out;
}
