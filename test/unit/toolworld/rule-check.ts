import type { ToolCall } from "../../../src/core/messages.js";
import type { Rule, Task } from "../../../src/core/task.js";

/**
 * A compact rule evaluator for these tests only (reward/ owns the real one): a turn passes a rule
 * when any of its calls (or its reply) satisfies it; a task succeeds when every rule of every turn passes.
 */
export interface TurnRecord {
  calls: ToolCall[];
  reply: string;
}

function argsMatch(want: Record<string, unknown> | undefined, got: Record<string, unknown>): boolean {
  if (!want) return true;
  return Object.entries(want).every(([k, v]) => JSON.stringify(got[k]) === JSON.stringify(v));
}

export function rulePasses(rule: Rule, turn: TurnRecord): boolean {
  if ("call" in rule)
    return turn.calls.some((c) => c.name === rule.call && argsMatch(rule.args, c.arguments));
  if ("forbid" in rule)
    return !turn.calls.some((c) => c.name === rule.forbid && argsMatch(rule.args, c.arguments));
  return rule.reply_contains.every((s) => turn.reply.includes(s));
}

/** The failed rules, as readable strings; empty when the task is solved. */
export function failedRules(task: Task, turns: TurnRecord[]): string[] {
  const failures: string[] = [];
  task.checklists.forEach((checklist, c) =>
    checklist.forEach((standards, t) =>
      standards.forEach((s) => {
        if (!s.rule) return;
        const turn = turns[t] ?? { calls: [], reply: "" };
        if (!rulePasses(s.rule, turn)) failures.push(`checklist ${c} turn ${t}: ${JSON.stringify(s.rule)}`);
      }),
    ),
  );
  return failures;
}

/** Word-level length: entity-like words are one token, a run of punctuation is one token. */
export function wordTokens(text: string): number {
  return (text.match(/[A-Za-z0-9_@]+|[^\sA-Za-z0-9_@]+/g) ?? []).length;
}
