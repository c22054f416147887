import type { Message } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { playTurn } from "../rollout/episode.js";
import { rehearsalResponder } from "../rollout/model-responder.js";
import type { MeteredModel } from "./metered-model.js";
import { withMemory } from "./memory-view.js";
import type { AttemptEnd, RehearsalAttempt, RehearsalOptions } from "./types.js";

export interface ImagineInput {
  /** The policy, metered for this attempt. It is the only handle an attempt gets: no environment, no user. */
  policy: MeteredModel;
  task: Task;
  /** The conversation so far (ending with the user's message, or mid-turn with tool results). */
  conversation: readonly Message[];
  turn: number;
  options: RehearsalOptions;
  /** A note added to the actor's context (sequential: the earlier attempts). */
  note?: string;
  signal?: AbortSignal;
}

/**
 * One imagined attempt at the turn: the policy acts, and plays every tool itself with the same
 * rehearsal prompt and strict `<execution_result>` parser as in training (`rehearsalResponder`),
 * until it replies to the user, errs out, or reaches its step or token limit.
 */
export async function imagineAttempt(input: ImagineInput, index: number): Promise<RehearsalAttempt> {
  const o = input.options;
  const responder = rehearsalResponder(input.policy, {
    variant: o.promptVariant ?? "full",
    temperature: o.temperature ?? 1,
    maxTokens: o.maxTokensPerCall ?? 512,
  });
  const opened = await responder.open(input.task);
  const note = input.note;
  try {
    const outcome = await playTurn(input.task, input.conversation, opened, input.turn, {
      policy: input.policy,
      responder,
      maxAssistantTurns: o.maxStepsPerAttempt ?? 6,
      temperature: o.temperature ?? 1,
      maxTokens: o.maxTokensPerCall ?? 512,
      ...(note ? { actorView: (messages: Message[]) => withMemory(messages, note) } : {}),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    const end: AttemptEnd = input.policy.exhausted
      ? "budget"
      : !outcome.end || outcome.end === "done"
        ? "replied"
        : outcome.end;
    const attempt: RehearsalAttempt = { index, end, calls: outcome.calls };
    if (!outcome.end) attempt.reply = outcome.replies[outcome.replies.length - 1] ?? "";
    if (outcome.error) attempt.error = outcome.error;
    return attempt;
  } finally {
    await opened.close();
  }
}
