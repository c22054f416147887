import type { ToolCall } from "../core/messages.js";
import type { Rule, Task } from "../core/task.js";
import { argsInclude } from "./deep-equal.js";

/**
 * Whether `text` mentions `phrase` as whole words: not inside a longer word, so that "30" is not
 * found in "130" or "o30", nor "cancel" in "cancelled". Case-sensitive, as the facts are.
 */
export function mentions(text: string, phrase: string): boolean {
  if (phrase.length === 0) return true;
  let at = text.indexOf(phrase);
  while (at >= 0) {
    const before = at === 0 ? "" : text[at - 1]!;
    const after = text[at + phrase.length] ?? "";
    if (!isWordChar(before) && !isWordChar(after)) return true;
    at = text.indexOf(phrase, at + 1);
  }
  return false;
}

function isWordChar(ch: string): boolean {
  return /^[A-Za-z0-9_]$/.test(ch);
}

/**
 * Whether one user turn satisfies a rule. `calls` are the turn's tool calls that passed validation
 * (a rejected call was never executed, so it neither fulfils a required call nor violates a
 * forbidden one); `replies` are the texts of the turn's assistant steps.
 * - `{call, args}`: some call has that name and includes `args` (deep equality per key);
 * - `{forbid, args?}`: no call has that name (and, when given, includes `args`);
 * - `{reply_contains, reply_excludes?}`: some assistant step's text mentions every required string
 *   (whole words), and no step of the turn mentions an excluded one. The exclusions are the facts
 *   that contradict the required ones: a reply that hedges by stating every possible value (every
 *   status, every id, every amount) states a contradiction and fails, as a user would read it.
 */
export function checkRule(rule: Rule, calls: readonly ToolCall[], replies: readonly string[]): boolean {
  if ("call" in rule) return calls.some((c) => c.name === rule.call && argsInclude(c.arguments, rule.args));
  if ("forbid" in rule)
    return !calls.some((c) => c.name === rule.forbid && argsInclude(c.arguments, rule.args));
  const excluded = rule.reply_excludes ?? [];
  if (replies.some((text) => excluded.some((s) => mentions(text, s)))) return false;
  return replies.some((text) => rule.reply_contains.every((s) => mentions(text, s)));
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
