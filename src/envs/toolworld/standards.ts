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

export function replyContains(strings: string[]): Standard {
  return {
    question: `Does the reply mention ${strings.map((s) => `"${s}"`).join(" and ")}?`,
    pass_condition: "",
    failure_examples: [],
    weight: 1,
    rule: { reply_contains: strings },
  };
}

/** Forbids every write tool except those listed: a turn may change only what it was asked to. */
export function forbidOthers(writeTools: readonly string[], allowed: readonly string[]): Standard[] {
  return writeTools.filter((t) => !allowed.includes(t)).map(mustNotCall);
}
