import { canonicalJson } from "../core/canonical-json.js";
import type { Message } from "../core/messages.js";
import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { readActOutput } from "../rollout/act-output.js";
import type { ToolCallRecord } from "../rollout/types.js";
import { toolCallKey } from "./consensus.js";
import { withoutMemory } from "./memory-view.js";
import { countRehearsalCall } from "./metered-model.js";
import type { CommitReply, RehearsalAttempt, RehearsalStats } from "./types.js";

/** The reply a sample gives (text, no tool call), or undefined when it calls a tool. */
function replyOf(result: ChatResult): string | undefined {
  const sample = result.samples[0];
  if (!sample) return undefined;
  const act = readActOutput(sample, "reply_check");
  return act.calls.length === 0 ? act.content : undefined;
}

/** A result as JSON where it is JSON (key order and spacing do not make two results differ). */
function sameResult(a: string, b: string): boolean {
  const canon = (s: string) => {
    try {
      return canonicalJson(JSON.parse(s));
    } catch {
      return s.trim();
    }
  };
  return canon(a) === canon(b);
}

/** The calls the conversation's last user turn made for real, each with the result it got. */
export function turnCalls(messages: readonly Message[]): { key: string; result: string }[] {
  const start = messages.map((m) => m.role).lastIndexOf("user");
  const calls: { key: string; result: string }[] = [];
  const results = new Map<string, string>();
  for (const m of messages.slice(start + 1))
    if (m.role === "tool" && m.toolCallId !== undefined) results.set(m.toolCallId, m.content);
  for (const m of messages.slice(start + 1))
    for (const c of m.toolCalls ?? []) calls.push({ key: toolCallKey(c), result: results.get(c.id) ?? "" });
  return calls;
}

/** Whether an attempt made exactly the turn's real calls, in order, and imagined exactly their results. */
export function livedTheRealTurn(
  attempt: RehearsalAttempt,
  real: readonly { key: string; result: string }[],
) {
  const made: readonly ToolCallRecord[] = attempt.calls;
  return (
    attempt.end === "replied" &&
    made.length === real.length &&
    made.every((c, i) => toolCallKey(c.call) === real[i]!.key && sameResult(c.result, real[i]!.result))
  );
}

/**
 * The reply most of the voters give: the reply written from the real conversation first, then the
 * replies of the attempts that lived the real turn (`livedTheRealTurn`); ties go to the first.
 */
export function agreedReply(
  plain: string,
  attempts: readonly RehearsalAttempt[],
  messages: readonly Message[],
) {
  const real = turnCalls(messages);
  const votes = [plain, ...attempts.filter((a) => livedTheRealTurn(a, real)).map((a) => a.reply ?? "")];
  const counts = new Map<string, number>();
  for (const v of votes) counts.set(v.trim(), (counts.get(v.trim()) ?? 0) + 1);
  let best = plain;
  for (const v of votes) if (counts.get(v.trim())! > counts.get(best.trim())!) best = v;
  return best;
}

export interface CommittedReplyInput {
  /** `real` or `agreed` (`noted` needs no wrapper). */
  kind: Exclude<CommitReply, "noted">;
  /** The note of the latest rehearsal (the one in the actor's system message). */
  note: () => string | undefined;
  /** The attempts of the latest rehearsal. */
  attempts: () => readonly RehearsalAttempt[];
}

/**
 * The committed actor whose replies rest on the real conversation (`RehearsalOptions.commitReply`):
 * `actor` acts with the note in its system message; when what it says is a reply, `policy` writes
 * the reply again with the note left out, and (`agreed`) the replies of the attempts that lived the
 * real turn vote with it. The reply written with the note stands only where, without the note, the
 * policy would call a tool instead (the note's decision to stop stands, in its words). Why: a small
 * actor that reads an imagined note copies its values into the reply even where the real results in
 * its context say otherwise (issue 11, seed 0: "moved to thursday" in the note and the conversation,
 * "friday" in the reply); the note is for deciding what to call, the real results are what a reply
 * may state, and attempts that saw exactly those results are more tries at stating them. The extra
 * call is rehearsal's cost (`stats.calls.reply`).
 */
export function committedReplies(
  actor: ChatModel,
  policy: ChatModel,
  input: CommittedReplyInput,
  stats: RehearsalStats,
): ChatModel {
  return {
    name: actor.name,
    async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
      const result = await actor.chat(request, options);
      const plain = withoutMemory(request.messages, input.note());
      const noted = plain.length !== request.messages.length || plain[0] !== request.messages[0];
      const written = replyOf(result);
      if (!noted || written === undefined) return result;
      const again = { ...request, messages: plain };
      const rewritten = await policy.chat(again, options);
      countRehearsalCall(stats, again, rewritten, "reply");
      const real = replyOf(rewritten);
      if (real === undefined) return result;
      const reply = input.kind === "agreed" ? agreedReply(real, input.attempts(), plain) : real;
      if (reply === written) return result;
      stats.replacedReplies++;
      return { ...rewritten, samples: [{ text: reply, finishReason: "stop" }] };
    },
  };
}
