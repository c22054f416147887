import type { RehearsalAttempt } from "./types.js";

const ENDINGS: Record<RehearsalAttempt["end"], string> = {
  replied: "replied to the user",
  max_assistant_turns: "cut off: too many steps without a reply",
  max_parallel_calls: "cut off: too many calls in one message",
  context_budget: "cut off: context budget",
  rehearser_error_tool_call: "stopped: the imagined tool rejected a call",
  rehearser_parse_error: "stopped: an imagined tool response could not be read",
  invalid_call: "stopped: an invalid tool call",
  required_standard_failed: "stopped: a required step was missed",
  judge_malformed: "stopped: the judge's verdict could not be read",
  max_steps: "cut off: too many model calls",
  model_error: "stopped: model error",
  budget: "stopped: rehearsal token budget spent",
  user_stop: "the imagined user ended the conversation",
  max_user_steps: "cut off: the imagined user kept using tools",
};

function callLine(c: RehearsalAttempt["calls"][number], maxResultChars: number, who = ""): string {
  const args = JSON.stringify(c.call.arguments);
  const tag = c.ok
    ? "->"
    : c.source === "validation"
      ? "-> INVALID CALL:"
      : c.parseError
        ? "-> UNREADABLE IMAGINED RESULT:"
        : "-> ERROR:";
  return `- ${who}${c.call.name} ${args} ${tag} ${clip(c.result, maxResultChars)}`;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** One attempt as lines: each call with its imagined result or error, then how it ended. */
export function digestAttempt(a: RehearsalAttempt, maxResultChars = 300): string {
  const lines = [`Attempt ${a.index + 1} (${ENDINGS[a.end]}):`];
  if (a.turns) {
    // the attempt went on past the reply: both sides in order, the user's part marked as imagined
    for (const t of a.turns) {
      const who = t.side === "user" ? "user (imagined) calls " : "";
      for (const c of t.calls) lines.push(callLine(c, maxResultChars, who));
      if (t.text !== undefined)
        lines.push(
          `- ${t.side === "user" ? "user (imagined) says" : "reply"}: ${clip(t.text, maxResultChars)}`,
        );
    }
  } else {
    for (const c of a.calls) lines.push(callLine(c, maxResultChars));
    if (a.calls.length === 0) lines.push("- no tool calls");
    if (a.reply !== undefined) lines.push(`- reply: ${clip(a.reply, maxResultChars)}`);
  }
  if (a.error && a.end !== "budget") lines.push(`- error: ${clip(a.error, 200)}`);
  return lines.join("\n");
}

/**
 * The deterministic rehearsal memory (for small models): every attempt's calls, imagined results,
 * errors and reply, cut to `maxChars`.
 */
export function digestAttempts(attempts: readonly RehearsalAttempt[], maxChars = 4000): string {
  const text = attempts.map((a) => digestAttempt(a)).join("\n");
  return text.length > maxChars ? `${text.slice(0, maxChars)}…` : text;
}
