import type { Standard } from "../../core/task.js";

/** Rule-based standards (reward/ checks them by code); the question is for humans and judges. */
export function mustCall(name: string, args: Record<string, unknown>): Standard {
  const shown = Object.entries(args)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(", ");
  return {
    question: `Did the agent call ${name} with ${shown}?`,
    pass_condition: "",
    failure_examples: [],
    weight: 1,
    rule: { call: name, args },
  };
}

export function mustNotCall(name: string): Standard {
  return {
    question: `Did the agent avoid calling ${name}?`,
    pass_condition: "",
    failure_examples: [],
    weight: 1,
    rule: { forbid: name },
  };
}

/**
 * The reply must state `strings` and none of `contradicting`: the other values the fact could have
 * had (other statuses, ids, amounts, days). Without the exclusions a reply listing every possible
 * value would pass (the hedging the rule must not reward).
 */
export function replyContains(strings: string[], contradicting: readonly string[] = []): Standard {
  const excludes = [...new Set(contradicting)].filter((x) => !strings.includes(x));
  return {
    question:
      `Does the reply mention ${strings.map((s) => `"${s}"`).join(" and ")}` +
      (excludes.length > 0 ? `, and no contradicting value?` : "?"),
    pass_condition: "",
    failure_examples: [],
    weight: 1,
    rule:
      excludes.length > 0
        ? { reply_contains: strings, reply_excludes: excludes }
        : { reply_contains: strings },
  };
}

/** Forbids `tool` on each of `otherIds`: a write asked for one item must not touch the others. */
export function forbidOtherTargets(tool: string, idKey: string, otherIds: readonly string[]): Standard[] {
  return otherIds.map((id) => ({
    question: `Did the agent avoid calling ${tool} on ${id}?`,
    pass_condition: "",
    failure_examples: [],
    weight: 1,
    rule: { forbid: tool, args: { [idKey]: id } },
  }));
}

/** Forbids every write tool except those listed: a turn may change only what it was asked to. */
export function forbidOthers(writeTools: readonly string[], allowed: readonly string[]): Standard[] {
  return writeTools.filter((t) => !allowed.includes(t)).map(mustNotCall);
}
