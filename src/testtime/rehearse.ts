import { withBranchSeeds } from "../core/sampling-seeds.js";
import type { Message } from "../core/messages.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { consensusPlan } from "./consensus.js";
import { digestAttempts } from "./digest.js";
import { imagineAttempt, type ImagineInput } from "./imagine.js";
import { memoryNote, revisionNote } from "./memory-view.js";
import { meteredModel, type MeterLimits } from "./metered-model.js";
import { summarizeAttempts } from "./summary.js";
import type { RehearsalAttempt, RehearsalOptions, RehearsalStats } from "./types.js";

export interface RehearseInput {
  /** The policy. Rehearsal gets nothing else to act on: no environment, no user simulator. */
  policy: ChatModel;
  task: Task;
  /** The conversation so far: it ends with the user's message (scope `turn`) or mid-turn (scope `action`). */
  conversation: readonly Message[];
  /** User turn (0-based). */
  turn: number;
  options: RehearsalOptions;
  /** Counters the rehearsal adds to (shared across an episode's turns, so the budget is too). */
  stats: RehearsalStats;
  signal?: AbortSignal;
  /**
   * Plays one attempt (default `imagineAttempt`). A bench whose attempts go on past the actor's
   * reply (τ²: an imagined user answers) passes its own; it gets the same metered policy.
   */
  imagine?: (input: ImagineInput, index: number) => Promise<RehearsalAttempt>;
}

export interface Rehearsal {
  attempts: RehearsalAttempt[];
  /** The rehearsal memory (digest or summary); undefined when nothing was rehearsed. */
  memory?: string;
  /** The memory wrapped as the note the committed actor sees. */
  note?: string;
}

const budgetLeft = (stats: RehearsalStats, o: RehearsalOptions) =>
  o.tokenBudget === undefined || stats.tokens.total < o.tokenBudget;

/**
 * Rehearses one step privately: N imagined attempts, in parallel (independent, from the same
 * state) or in sequence (each shown the earlier ones and asked to revise), then condensed into a
 * memory note. No attempt starts once the token budget is spent.
 */
export async function rehearse(input: RehearseInput): Promise<Rehearsal> {
  const o = input.options;
  const n = o.mode === "none" ? 0 : (o.n ?? 1);
  if (n === 0) return { attempts: [] };
  if (!budgetLeft(input.stats, o)) {
    input.stats.skipped++;
    return { attempts: [] };
  }
  input.stats.phases++;
  const limits: MeterLimits = {
    maxCompletionTokens: o.maxTokensPerAttempt ?? 2048,
    ...(o.tokenBudget !== undefined ? { tokenBudget: o.tokenBudget } : {}),
    defaultMaxTokens: o.maxTokensPerCall ?? 512,
  };
  const imagine = input.imagine ?? imagineAttempt;
  const attemptAt = (index: number, note?: string) =>
    imagine(
      {
        policy: meteredModel(input.policy, input.stats, limits),
        task: input.task,
        conversation: input.conversation,
        turn: input.turn,
        options: o,
        ...(note ? { note } : {}),
        ...(input.signal ? { signal: input.signal } : {}),
      },
      index,
    );

  const attempts: RehearsalAttempt[] = [];
  if (o.mode === "parallel") {
    // each attempt seeded on its own (inside an episode's seed scope): concurrent attempts
    // interleave their requests differently from run to run, their draws stay the same
    const phase = input.stats.phases;
    const branch = (i: number) => withBranchSeeds(`rehearsal${phase}.attempt${i}`, () => attemptAt(i));
    attempts.push(...(await Promise.all(Array.from({ length: n }, (_, i) => branch(i)))));
  } else {
    for (let i = 0; i < n && budgetLeft(input.stats, o); i++) {
      const note = i > 0 ? revisionNote(digestAttempts(attempts, o.maxMemoryChars), i + 1, n) : undefined;
      attempts.push(await attemptAt(i, note));
    }
  }
  for (const a of attempts) input.stats.attemptEnds[a.end] = (input.stats.attemptEnds[a.end] ?? 0) + 1;
  input.stats.attempts += attempts.length;

  const digest = digestAttempts(attempts, o.maxMemoryChars);
  const consensus = o.memory === "consensus" ? consensusPlan(attempts) : undefined;
  let memory = consensus ? digestAttempts([consensus], o.maxMemoryChars) : digest;
  if ((o.memory ?? "digest") === "summary") {
    const summaryLimits: MeterLimits = {
      defaultMaxTokens: o.summaryMaxTokens ?? 256,
      ...(o.tokenBudget !== undefined ? { tokenBudget: o.tokenBudget } : {}),
    };
    const summarizer = meteredModel(input.policy, input.stats, summaryLimits, "summary");
    const summary = await summarizeAttempts(
      summarizer,
      input.conversation,
      digest,
      o.summaryMaxTokens ?? 256,
      input.signal,
    );
    if (summary) memory = summary.slice(0, o.maxMemoryChars ?? 4000);
    else input.stats.summaryFallbacks++;
  }
  return { attempts, memory, note: memoryNote(memory, attempts.length) };
}
