import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { readActOutput } from "../rollout/act-output.js";
import { withoutMemory } from "./memory-view.js";
import { countRehearsalCall } from "./metered-model.js";
import type { RehearsalStats } from "./types.js";

/** The reply a sample gives (text, no tool call), or undefined when it calls a tool. */
function replyOf(result: ChatResult): string | undefined {
  const sample = result.samples[0];
  if (!sample) return undefined;
  const act = readActOutput(sample, "reply_check");
  return act.calls.length === 0 ? act.content : undefined;
}

/**
 * The committed actor whose replies rest on the real conversation (`RehearsalOptions.commitReply`):
 * `actor` acts with the note in its system message; when what it says is a reply, `policy` writes
 * the reply again with the note left out, and that reply is committed. The reply written with the
 * note stands only where, without the note, the policy would call a tool instead (the note's
 * decision to stop stands, in its words). Why: a small actor that reads an imagined note copies
 * values into its reply that neither the note nor the real results hold (issue 11, seed 0: "moved to
 * thursday" in the note and the conversation, "friday" in the reply; replies with a wrong fact 16 →
 * 20 with the note on seed 0, 11 → 15 on seed 9, back to 16 and 11 written without it); the note is
 * for deciding what to call, the real results are what a reply may state. The extra call is
 * rehearsal's cost (`stats.calls.reply`).
 */
export function committedReplies(
  actor: ChatModel,
  policy: ChatModel,
  note: () => string | undefined,
  stats: RehearsalStats,
): ChatModel {
  return {
    name: actor.name,
    async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
      const result = await actor.chat(request, options);
      const plain = withoutMemory(request.messages, note());
      const noted = plain.length !== request.messages.length || plain[0] !== request.messages[0];
      const written = replyOf(result);
      if (!noted || written === undefined) return result;
      const again = { ...request, messages: plain };
      const rewritten = await policy.chat(again, options);
      countRehearsalCall(stats, again, rewritten, "reply");
      const reply = replyOf(rewritten);
      if (reply === undefined || reply === written) return result;
      stats.replacedReplies++;
      return rewritten;
    },
  };
}
