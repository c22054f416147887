import type { Message } from "../core/messages.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import type { RehearsalPhase } from "./phase-guard.js";
import { rehearse, type Rehearsal } from "./rehearse.js";
import { withMemory } from "./memory-view.js";
import type { RehearsalOptions, RehearsalStats } from "./types.js";

export interface RehearsalRecord {
  turn: number;
  /** The act step of the committed turn before which it ran (0 with scope `turn`). */
  step: number;
  rehearsal: Rehearsal;
}

export interface RehearsingViewInput {
  policy: ChatModel;
  task: Task;
  options: RehearsalOptions;
  stats: RehearsalStats;
  phase: RehearsalPhase;
  /** Each rehearsal, as it completes. */
  onRehearsal?: (r: RehearsalRecord) => void;
  signal?: AbortSignal;
}

/**
 * The committed run's `actorView`: before the first act call of each user turn (scope `turn`) or
 * before every act call (scope `action`) it rehearses from the real conversation so far, inside the
 * rehearsal phase, and then shows the actor the conversation with the memory note. Only the policy,
 * the task and a copy of the messages reach `rehearse`; the environment never does.
 */
export function rehearsingActorView(input: RehearsingViewInput) {
  const scope = input.options.scope ?? "turn";
  let note: string | undefined;
  return async (messages: Message[], at: { turn: number; step: number }): Promise<Message[]> => {
    if (input.options.mode === "none") return messages;
    if (scope === "action" || at.step === 0) {
      const r = await input.phase.run(() =>
        rehearse({
          policy: input.policy,
          task: input.task,
          conversation: messages.slice(),
          turn: at.turn,
          options: input.options,
          stats: input.stats,
          ...(input.signal ? { signal: input.signal } : {}),
        }),
      );
      input.stats.realCallsDuringRehearsal = input.phase.realCalls;
      input.stats.userCallsDuringRehearsal = input.phase.userCalls;
      note = r.note;
      input.onRehearsal?.({ turn: at.turn, step: at.step, rehearsal: r });
    }
    return withMemory(messages, note);
  };
}
