import type { Task } from "../../core/task.js";
import { MAX_WORLDS, tenantOf } from "./generate.js";
import { goldSolve } from "./gold-solver.js";
import { DAYS, ITEM_COUNT, NUMBERS, OWNER_COUNT, ids } from "./pools.js";
import { domainSpec, TOOLWORLD_DOMAINS } from "./registry.js";
import { RESULT_FIELD } from "./execute.js";
import { domainTools } from "./tools.js";

/** The closed pools' entities of `domains`: owner keys (emails, names) and owner and item ids. */
export function toolworldEntities(domains: readonly string[] = TOOLWORLD_DOMAINS): string[] {
  return domains.flatMap((name) => {
    const d = domainSpec(name);
    return [...d.owner.keys, ...ids(d.owner.idPrefix, OWNER_COUNT), ...ids(d.item.idPrefix, ITEM_COUNT)];
  });
}

/**
 * The words of `text` shaped like a closed pool's entity (`eva@mail`, `c12`, `Eva`): candidates that
 * callers check against `toolworldEntities()`, since a capitalised word need not be a name.
 */
export function entityMentions(text: string): string[] {
  return text.match(/[a-z]+@mail|\b[a-z]\d+\b|\b[A-Z][a-z]+\b/g) ?? [];
}

/**
 * The strings a tiny word-level model must see as single tokens (the worker's `--vocab-extra FILE`,
 * one a line): every entity of the closed pools (ids, emails, names), status words, days, numbers,
 * tool names, JSON field names and tenant names. The set is closed and seed-independent; pass every domain the
 * model will be evaluated on (by default all, the held-out one included) so that its entities are
 * whole tokens too.
 */
export function toolworldVocabulary(
  domains: readonly string[] = TOOLWORLD_DOMAINS,
  opts: {
    /**
     * Entities (ids, emails, names) as whole tokens (default true). False leaves them to the BPE
     * tokenizer, which writes digits one per token: `e48` is `e 4 8`, so an entity that no
     * training text names is still made of trained tokens.
     */
    entities?: boolean;
  } = {},
): string[] {
  const out = new Set<string>();
  const add = (s: string | number) => out.add(String(s));
  for (const name of domains) {
    const d = domainSpec(name);
    if (opts.entities !== false) toolworldEntities([name]).forEach(add);
    d.item.statuses.forEach(add);
    for (const t of domainTools(d)) {
      add(t.name);
      Object.keys((t.parameters.properties ?? {}) as Record<string, unknown>).forEach(add);
    }
    [
      d.owner.idKey,
      d.owner.keyField,
      d.item.idKey,
      d.item.plural,
      d.item.detailField,
      "status",
      "error",
    ].forEach(add);
    for (const s of d.specials) [RESULT_FIELD, s.result].forEach(add); // its success response (`confirmed`)
  }
  DAYS.forEach(add);
  NUMBERS.forEach(add);
  for (let i = 0; i < MAX_WORLDS; i++) add(tenantOf(i));
  return [...out].sort();
}

/** Text to train the tiny tokenizer on: each task's system, tools, turns and gold trajectory. */
export function toolworldCorpus(tasks: readonly Task[]): string {
  const lines: string[] = [];
  for (const task of tasks) {
    if (task.system) lines.push(task.system);
    for (const t of task.tools) lines.push(JSON.stringify(t));
    for (const turn of goldSolve(task).turns) {
      lines.push(turn.user);
      for (const c of turn.calls) {
        lines.push(
          `<tool_call>\n${JSON.stringify({ name: c.call.name, arguments: c.call.arguments })}\n</tool_call>`,
        );
        lines.push(`<tool_response>\n${JSON.stringify(c.result)}\n</tool_response>`);
      }
      lines.push(turn.reply);
    }
  }
  return lines.join("\n") + "\n";
}
