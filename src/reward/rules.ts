import type { ToolCall } from "../core/messages.js";
import type { Rule, Task } from "../core/task.js";
import { argsInclude } from "./deep-equal.js";

/**
 * Whether one user turn satisfies a rule. `calls` are the turn's tool calls that passed validation
 * (a rejected call was never executed, so it neither fulfils a required call nor violates a
 * forbidden one); `replies` are the texts of the turn's assistant steps.
 * - `{call, args}`: some call has that name and includes `args` (deep equality per key);
 * - `{forbid, args?}`: no call has that name (and, when given, includes `args`);
 * - `{reply_contains}`: some assistant step's text contains every string.
 */
export function checkRule(rule: Rule, calls: readonly ToolCall[], replies: readonly string[]): boolean {
  if ("call" in rule) return calls.some((c) => c.name === rule.call && argsInclude(c.arguments, rule.args));
  if ("forbid" in rule)
    return !calls.some((c) => c.name === rule.forbid && argsInclude(c.arguments, rule.args));
  return replies.some((text) => rule.reply_contains.every((s) => text.includes(s)));
}

/**
 * Rule verdicts for a whole episode, indexed `[checklist][turn][standard]`; `undefined` where the
 * standard has no rule (the LLM judge decides it) or the turn was never reached.
 * `turnCalls[t]` / `turnReplies[t]` hold user turn t's validated calls and assistant texts.
 */
export function scoreRules(
  task: Task,
  turnCalls: readonly (readonly ToolCall[])[],
  turnReplies: readonly (readonly string[])[],
): (boolean | undefined)[][][] {
  return task.checklists.map((checklist) =>
    checklist.map((standards, t) =>
      standards.map((s) => {
        if (!s.rule || t >= turnCalls.length) return undefined;
        return checkRule(s.rule, turnCalls[t] ?? [], turnReplies[t] ?? []);
      }),
    ),
  );
}
