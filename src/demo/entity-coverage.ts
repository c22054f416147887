import type { Task } from "../core/task.js";
import { entityMentions, toolworldEntities } from "../envs/toolworld/index.js";
import { renameNames } from "./tool-aliases.js";

function kindOf(token: string): string {
  if (token.endsWith("@mail")) return "email";
  if (/^[A-Z]/.test(token)) return "name";
  return `id:${token[0]}`;
}

export interface EntityCoverage {
  /** The task's names renamed by `aliases`, with some own entities moved to unnamed ones. */
  extend(task: Task, runText: string, aliases: Map<string, string>): Map<string, string>;
}

/**
 * Pseudonymized renamed logs (issue 11's SFT gate; `DemoPlan.sftPseudonymize`): entities (ids, emails, names) that
 * no training task names are never an SFT target, so the tiny whole-token model cannot write them
 * when an evaluation request names one. In a renamed log, a task's own entities may be swapped for
 * such unnamed entities of the same kind, consistently, as a pseudonymized log would; the renamed
 * request must not equal any evaluation request (`forbidden`).
 */
export function entityCoverage(
  tasks: readonly Task[],
  forbidden: ReadonlySet<string>,
  /** Renamed logs that write each unnamed entity (default 1). */
  uses = 1,
): EntityCoverage {
  if (!Number.isInteger(uses) || uses < 1)
    throw new Error(`entity coverage: uses must be an integer ≥ 1, got ${uses}`);
  const entities = [...new Set(toolworldEntities())].sort();
  const isEntity = new Set(entities);
  const named = new Set<string>();
  for (const t of tasks)
    for (const w of entityMentions(JSON.stringify([t.user_turns, t.examples]))) named.add(w);
  // Each unnamed entity `uses` times over, in rounds: all of them once before any twice.
  const queues = new Map<string, string[]>();
  for (let round = 0; round < uses; round++)
    for (const e of entities) {
      if (named.has(e)) continue;
      const q = queues.get(kindOf(e)) ?? [];
      q.push(e);
      queues.set(kindOf(e), q);
    }
  return {
    extend(task, runText, aliases) {
      const present = new Set(
        entityMentions(JSON.stringify([task.user_turns, task.examples]) + runText).filter((w) =>
          isEntity.has(w),
        ),
      );
      const map = new Map(aliases);
      const image = (w: string) => map.get(w) ?? w;
      const taken = new Set([...present].map(image));
      const moved: [string, string][] = [];
      for (const w of present) {
        const q = queues.get(kindOf(image(w)));
        const to = q?.find((c) => !taken.has(c));
        if (!q || !to) continue;
        moved.push([w, to]);
        taken.add(to);
        map.set(w, to);
      }
      const renamed = renameNames(task.user_turns, map);
      if (moved.length === 0 || renamed.some((u) => forbidden.has(u))) return aliases;
      // the queues empty as the renamed logs write their entities
      for (const [, to] of moved) {
        const q = queues.get(kindOf(to))!;
        q.splice(q.indexOf(to), 1);
      }
      return map;
    },
  };
}
