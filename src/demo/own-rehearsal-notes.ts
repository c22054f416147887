import { mapConcurrent } from "../core/map-concurrent.js";
import type { Message } from "../core/messages.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { mulberry32 } from "../train/task-sampler.js";
import type { EpisodeSampler } from "../train/loop.js";
import { MEMORY_HEADER, withMemory } from "../testtime/memory-view.js";
import { imagineAttempt } from "../testtime/imagine.js";
import { rehearse } from "../testtime/rehearse.js";
import { requestSeed, withSamplingSeeds } from "../core/sampling-seeds.js";
import { emptyRehearsalStats, type RehearsalOptions } from "../testtime/types.js";
import { borrowExamples } from "./data.js";

export interface OwnNotesOptions {
  /** The policy being trained: it rehearses, at its current weights, as test-time rehearsal does. */
  policy: ChatModel;
  /** Share of a step's single-turn tasks whose group is played under a note (0: none). */
  share: number;
  seed: number;
  /** Test-time rehearsal's options (`testTimeRehearsal`): the same attempts, digest and wording. */
  rehearsal: RehearsalOptions;
  /**
   * Where the note's rehearser takes its evidence from: other tasks' logs of the task's world, as
   * at evaluation (`borrowExamples`), never the task's own recorded responses.
   */
  pool: readonly Task[];
}

/** Is `task` drawn for a note at `step`? Its own stream per (seed, step, task), so nothing else moves. */
function drawn(o: OwnNotesOptions, step: number, task: Task): boolean {
  return mulberry32(requestSeed({ seed: o.seed ^ 0x0e7e5, step, task: task.id, sample: 0 }, 0))() < o.share;
}

/**
 * The sampler with a share of each step's groups played under a rehearsal note that the policy
 * wrote itself just before, exactly as test-time rehearsal writes it (`rehearse` → digest →
 * `memoryNote` in the system message), from other tasks' logs as the rehearser's evidence, as at
 * evaluation. The group's G samples then share one note, so GRPO compares ways of acting on it:
 * the reward is what teaches the actor which of its imagined attempts to follow, and that an
 * imagined "done" is not evidence. Logged notes (`tasksWithLoggedNotes`) are the past agent's runs
 * with real results; these are what the committed actor meets at test time (issue 11: with logged
 * notes only, `envace` lost 2–11 points with parallel:4 rehearsal, and the committed run wrote
 * where none of its attempts had).
 */
export function withOwnRehearsalNotes(sampler: EpisodeSampler, o: OwnNotesOptions): EpisodeSampler {
  if (o.share <= 0) return sampler;
  return {
    async sampleGroups(tasks, opts) {
      const noted = await mapConcurrent(tasks, tasks.length, async (task) => {
        const turn = task.user_turns[0];
        // single-turn tasks (a note is about one user turn), not already carrying a logged note
        if (task.user_turns.length !== 1 || turn === undefined || task.system?.includes(MEMORY_HEADER))
          return task;
        if (!drawn(o, opts.step, task)) return task;
        const conversation: Message[] = [
          ...(task.system ? [{ role: "system" as const, content: task.system }] : []),
          { role: "user", content: turn },
        ];
        const r = await rehearse({
          policy: o.policy,
          task: borrowExamples([task], o.pool)[0]!,
          conversation,
          turn: 0,
          options: o.rehearsal,
          stats: emptyRehearsalStats(o.rehearsal),
          // each attempt's requests seeded from (seed, step, task, attempt), as the rollouts' are
          imagine: (input, index) =>
            withSamplingSeeds({ seed: o.seed, step: opts.step, task: `${task.id}#note`, sample: index }, () =>
              imagineAttempt(input, index),
            ),
        });
        if (!r.note) return task;
        const system = withMemory(conversation, r.note)[0]!;
        return { ...task, system: system.content ?? task.system };
      });
      return sampler.sampleGroups(noted, opts);
    },
  };
}
