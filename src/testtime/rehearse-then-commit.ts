import type { Message } from "../core/messages.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import type { Environment } from "../envs/env.js";
import { playTurn, type EpisodeOptions, type TurnOutcome } from "../rollout/episode.js";
import { realResponder } from "../rollout/real-responder.js";
import { rehearsingActorView, type RehearsalRecord } from "./actor-view.js";
import { committedActor } from "./commit-guard.js";
import { GuardedEnvironment, RehearsalPhase } from "./phase-guard.js";
import { emptyRehearsalStats, type RehearsalOptions, type RehearsalStats } from "./types.js";

export interface RehearseThenCommitInput {
  policy: ChatModel;
  /** Tools, system prompt and few-shot `examples` (see `liveTask`). */
  task: Task;
  /** The conversation so far, ending with the user's new message. */
  conversation: readonly Message[];
  /** The real environment: used only by the committed run (behind a guard), never while rehearsing. */
  env: Environment;
  rehearsal: RehearsalOptions;
  /** User turn index (0-based; default: the number of user messages in `conversation` minus 1). */
  turn?: number;
  /** Counters to add to (pass the same object for every turn of a conversation: the budget is shared). */
  stats?: RehearsalStats;
  /** Limits of the committed run (max assistant turns, parallel calls, context budget, temperature, max tokens). */
  limits?: Pick<
    EpisodeOptions,
    "maxAssistantTurns" | "maxParallelCalls" | "contextBudgetTokens" | "temperature" | "maxTokens"
  >;
  signal?: AbortSignal;
}

export interface CommittedTurn extends TurnOutcome {
  /** The actor's reply to the user (when the turn ended with one). */
  reply?: string;
  /** The rehearsals that ran (one with scope `turn`), with their attempts and memory. */
  rehearsals: RehearsalRecord[];
  stats: RehearsalStats;
  /** Calls that reached the real environment in the committed run. */
  realCalls: number;
}

/**
 * One user turn of a live conversation: rehearse privately (the policy plays the tools; nothing
 * real is called), condense the attempts into a memory, then commit one real execution of the turn
 * with the memory in the actor's system message. The environment is not closed.
 */
export async function rehearseThenCommit(input: RehearseThenCommitInput): Promise<CommittedTurn> {
  const stats = input.stats ?? emptyRehearsalStats(input.rehearsal);
  const phase = new RehearsalPhase();
  phase.realCalls = stats.realCallsDuringRehearsal;
  phase.userCalls = stats.userCallsDuringRehearsal;
  const guarded = new GuardedEnvironment(input.env, phase);
  const responder = realResponder(() => guarded);
  const opened = await responder.open(input.task);
  const rehearsals: RehearsalRecord[] = [];
  const turn = input.turn ?? Math.max(0, input.conversation.filter((m) => m.role === "user").length - 1);
  const commit = committedActor(input.policy, input.rehearsal, stats);
  const actorView = rehearsingActorView({
    policy: input.policy,
    task: input.task,
    options: input.rehearsal,
    stats,
    phase,
    onRehearsal: (r) => {
      rehearsals.push(r);
      commit.observe(r.rehearsal);
    },
    ...(input.signal ? { signal: input.signal } : {}),
  });
  const outcome = await playTurn(input.task, input.conversation, opened, turn, {
    ...input.limits,
    policy: commit.actor,
    responder,
    actorView,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  stats.realCallsDuringRehearsal = phase.realCalls;
  const committed: CommittedTurn = { ...outcome, rehearsals, stats, realCalls: guarded.realCalls };
  if (!outcome.end) committed.reply = outcome.replies[outcome.replies.length - 1] ?? "";
  return committed;
}
