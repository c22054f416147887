import type { Task } from "../core/task.js";
import { entityMentions, toolworldEntities } from "../envs/toolworld/index.js";
import type { Pseudonyms } from "./layout.js";
import { renameNames } from "./tool-aliases.js";

function kindOf(token: string): string {
  if (token.endsWith("@mail")) return "email";
  if (/^[A-Z]/.test(token)) return "name";
  return `id:${token[0]}`;
}

export interface EntityCoverage {
  /** The task's names renamed by `aliases`, with some own entities moved to under-written ones. */
  extend(task: Task, runText: string, aliases: Map<string, string>): Map<string, string>;
}

/**
 * Pseudonymized logs (issue 11's SFT gate; `DemoPlan.sftPseudonymize`): an entity (id, email, name)
 * that few or no training tasks name is rarely or never an SFT target, so the tiny whole-token
 * model cannot write it when an evaluation request names one (seed 9: every gate miss was a name
 * written 1–3 times against 12–36 for the others). A log's own entities may be swapped for such
 * under-written entities of the same kind, consistently, as a pseudonymized log would; the renamed
 * request must not equal any evaluation request (`forbidden`).
 */
export function entityCoverage(
  tasks: readonly Task[],
  forbidden: ReadonlySet<string>,
  /** `DemoPlan.sftPseudonymize`'s settings (default v9's: `renamed`, 1 use). */
  opts: Partial<Pseudonyms> = {},
): EntityCoverage {
  const uses = opts.uses ?? 1;
  // Balanced: any log may give (the caller passes empty aliases for logs not renamed), and only
  // entities named by more than `uses` tasks give, so a move never leaves its source under-written.
  const balanced = opts.mode === "balanced";
  if (!Number.isInteger(uses) || uses < 1)
    throw new Error(`entity coverage: uses must be an integer ≥ 1, got ${uses}`);
  const entities = [...new Set(toolworldEntities())].sort();
  const isEntity = new Set(entities);
  const mentionsOf = (task: Task, runText = "") =>
    new Set(
      entityMentions(JSON.stringify([task.user_turns, task.examples]) + runText).filter((w) =>
        isEntity.has(w),
      ),
    );
  // Tasks naming each entity; balanced moves keep it above `uses` for the entity moved away from.
  const named = new Map<string, number>();
  for (const t of tasks) for (const w of mentionsOf(t)) named.set(w, (named.get(w) ?? 0) + 1);
  const owed = (e: string) => (balanced ? Math.max(0, uses - (named.get(e) ?? 0)) : named.has(e) ? 0 : uses);
  // Each owed entity once before any twice, in rounds.
  const queues = new Map<string, string[]>();
  for (let round = 0; round < uses; round++)
    for (const e of entities) {
      if (owed(e) <= round) continue;
      const q = queues.get(kindOf(e)) ?? [];
      q.push(e);
      queues.set(kindOf(e), q);
    }
  return {
    extend(task, runText, aliases) {
      const present = mentionsOf(task, runText);
      const map = new Map(aliases);
      const image = (w: string) => map.get(w) ?? w;
      const taken = new Set([...present].map(image));
      const moved: [string, string][] = [];
      for (const w of present) {
        if (balanced && (named.get(w) ?? 0) <= uses) continue;
        const q = queues.get(kindOf(image(w)));
        const to = q?.find((c) => !taken.has(c));
        if (!q || !to) continue;
        moved.push([w, to]);
        taken.add(to);
        map.set(w, to);
      }
      const renamed = renameNames(task.user_turns, map);
      if (moved.length === 0 || renamed.some((u) => forbidden.has(u))) return aliases;
      // the queues empty as the logs write their entities
      for (const [from, to] of moved) {
        const q = queues.get(kindOf(to))!;
        q.splice(q.indexOf(to), 1);
        named.set(from, (named.get(from) ?? 0) - 1);
        named.set(to, (named.get(to) ?? 0) + 1);
      }
      return map;
    },
  };
}
