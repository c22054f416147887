import type { ToolCall } from "../../../src/core/messages.js";
import type { Rule, Task } from "../../../src/core/task.js";
import { checkRule } from "../../../src/reward/rules.js";

/** One user turn of a scripted run: its calls and its reply to the user. */
export interface TurnRecord {
  calls: ToolCall[];
  reply: string;
}

/** The reward's own rule check (reward/), on one turn's calls and reply. */
export function rulePasses(rule: Rule, turn: TurnRecord): boolean {
  return checkRule(rule, turn.calls, [turn.reply]);
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
