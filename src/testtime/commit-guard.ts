import type { Message, ToolCall } from "../core/messages.js";
import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { readActOutput } from "../rollout/act-output.js";
import type { ToolCallRecord } from "../rollout/types.js";
import { consensusPlan, isErrorResult, refusedCalls, toolCallKey } from "./consensus.js";
import { countRehearsalCall } from "./metered-model.js";
import { noteDecides } from "./note-decides.js";
import type { Rehearsal } from "./rehearse.js";
import type { RehearsalAttempt, RehearsalOptions, RehearsalStats } from "./types.js";

/** What one rehearsal tells the committed run not to do, and what to say instead. */
export interface CommitGuard {
  /** Calls (by `toolCallKey`) of the guarded tools the rehearsal found refused, each with an imagined refusal. */
  refused: ReadonlyMap<string, ToolCallRecord>;
  /** The reply of the plan most attempts agree on (`consensusPlan`), when it replied. */
  reply?: string;
}

export const NO_GUARD: CommitGuard = { refused: new Map() };

/**
 * The guard a rehearsal sets for the committed run: the calls of `tools` (the side-effecting ones)
 * that the imagined tools refused in more than half of the attempts that made them. A refused
 * read is left alone: making it changes nothing, and its real answer is better evidence than the
 * imagined one.
 */
export function commitGuard(attempts: readonly RehearsalAttempt[], tools: ReadonlySet<string>): CommitGuard {
  const keys = refusedCalls(attempts);
  const refused = new Map<string, ToolCallRecord>();
  for (const a of attempts)
    for (const c of a.calls) {
      const key = toolCallKey(c.call);
      if (tools.has(c.call.name) && keys.has(key) && isErrorResult(c) && !refused.has(key))
        refused.set(key, c);
    }
  if (refused.size === 0) return NO_GUARD;
  const reply = consensusPlan(attempts)?.reply;
  return reply ? { refused, reply } : { refused };
}

export interface GuardedActorOptions {
  /** The guard of the latest rehearsal. */
  current: () => CommitGuard;
  /** Called with the calls held back from an act output (each call once, however often it is asked again). */
  onHeld?: (calls: readonly ToolCall[]) => void;
  /** Called when the actor insisted and the rehearsal's reply was committed instead. */
  onFallback?: () => void;
  /** Called with each ask again (a model call the guard added) and its result. */
  onAsk?: (request: ChatRequest, result: ChatResult) => void;
  /** Times the actor is asked again after a held-back call (default 2). */
  maxAsks?: number;
}

/**
 * The committed run's actor behind the rehearsal's guard: an act output that makes a call the
 * rehearsal found refused is not committed. The actor is shown, privately, that call with the
 * refusal it imagined and asked again, as it would continue after the real refusal; what it says
 * then is the act output the episode sees (the held-back call never reaches the environment nor the
 * transcript). An actor that still makes the call after `maxAsks` gets the rehearsal's own reply
 * committed for it; with no such reply the call goes through (the guard never invents text).
 * Why: a small actor repeats a forbidden write its own rehearsal saw refused even with a note that
 * leaves it out (issue 11, seed 2: 34 of 39 forbidden writes), and a refusal from the real world
 * comes too late: the write was made.
 */
export function guardedActor(policy: ChatModel, o: GuardedActorOptions): ChatModel {
  const maxAsks = o.maxAsks ?? 2;
  return {
    name: policy.name,
    async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
      const guard = o.current();
      let messages = request.messages;
      const counted = new Set<string>(); // a call the actor insists on is held once, not per ask
      for (let ask = 0; ; ask++) {
        const result = await policy.chat({ ...request, messages }, options);
        if (ask > 0) o.onAsk?.({ ...request, messages }, result);
        const sample = result.samples[0];
        if (!sample || guard.refused.size === 0) return result;
        const act = readActOutput(sample, `held_${ask}`);
        const held = act.calls.filter((c) => guard.refused.has(toolCallKey(c)));
        if (held.length === 0) return result;
        const fresh = held.filter((c) => !counted.has(toolCallKey(c)));
        for (const c of fresh) counted.add(toolCallKey(c));
        if (fresh.length > 0) o.onHeld?.(fresh);
        if (ask === maxAsks) {
          if (!guard.reply) return result;
          o.onFallback?.();
          return { ...result, samples: [{ text: guard.reply, finishReason: "stop" }] };
        }
        messages = [...messages, ...imaginedRefusal(act.content, held, guard)];
      }
    },
  };
}

/** The held-back calls as the actor's message, answered with the refusals the rehearsal imagined. */
function imaginedRefusal(content: string, held: readonly ToolCall[], guard: CommitGuard): Message[] {
  return [
    { role: "assistant", content, toolCalls: [...held] },
    ...held.map((c): Message => ({
      role: "tool",
      content: guard.refused.get(toolCallKey(c))?.result ?? "",
      toolCallId: c.id,
      name: c.name,
    })),
  ];
}

/**
 * The actor of a committed run: behind the rehearsal's guard under `options.guardTools`, its
 * steps written from the real conversation under `options.noteUse` "decide" (`noteDecides`); the
 * policy itself when neither is asked for. `observe` takes each rehearsal as it completes (its
 * attempts set the guard, its note is the one a rewritten step leaves out, and `note()` gives it
 * back to a caller that shows it to the actor). Held-back calls,
 * fallbacks and rewritten steps are counted in `stats`, and the extra model calls in its calls and
 * tokens: they are rehearsal's cost.
 */
export function committedActor(
  policy: ChatModel,
  options: RehearsalOptions,
  stats: RehearsalStats,
): {
  actor: ChatModel;
  observe: (rehearsal: Pick<Rehearsal, "attempts" | "note">) => void;
  /** The latest rehearsal's note; undefined before the first one. */
  note: () => string | undefined;
} {
  const tools = new Set(options.guardTools ?? []);
  if (options.mode === "none") return { actor: policy, observe: () => {}, note: () => undefined };
  let guard = NO_GUARD;
  let note: string | undefined;
  let tried = new Set<string>(); // the tools some attempt of the latest rehearsal called
  const guarded =
    tools.size === 0
      ? policy
      : guardedActor(policy, {
          current: () => guard,
          onHeld: (calls) => (stats.heldCalls += calls.length),
          onFallback: () => stats.guardFallbacks++,
          onAsk: (request, result) => countRehearsalCall(stats, request, result, "guard"),
        });
  const actor =
    options.noteUse === "decide"
      ? noteDecides(
          guarded,
          policy,
          {
            note: () => note,
            held: (c) => guard.refused.has(toolCallKey(c)),
            ...(tools.size > 0
              ? {
                  effects: {
                    reads: (c: ToolCall) => !tools.has(c.name),
                    tried: (c: ToolCall) => tried.has(c.name),
                  },
                }
              : {}),
          },
          stats,
        )
      : guarded;
  return {
    actor,
    note: () => note,
    observe: (r) => {
      note = r.note;
      if (tools.size === 0) return; // no guard, and nothing for the note's rewrites to tell apart
      guard = commitGuard(r.attempts, tools);
      tried = new Set(r.attempts.flatMap((a) => a.calls.map((c) => c.call.name)));
    },
  };
}
