import { mapConcurrent } from "../../core/map-concurrent.js";
import type { Task } from "../../core/task.js";
import type { EpisodeOptions } from "../../rollout/episode.js";
import type { EnvFactory } from "../../rollout/real-responder.js";
import { runEpisodeWithRehearsal, type RehearsalEpisodeResult } from "../../testtime/episode.js";
import {
  addRehearsalStats,
  emptyRehearsalStats,
  rehearsalCallCount,
  type RehearsalOptions,
  type RehearsalStats,
} from "../../testtime/types.js";

/** One trial of a task file, before it is decided where its calls are answered. */
export interface RehearsedJob {
  task: Task;
  options: Omit<EpisodeOptions, "responder" | "actorView">;
}

/** What one trial's rehearsal cost and did (`--json`'s per-trial fields). */
export interface TrialRehearsal {
  rehearsal_tokens: number;
  rehearsal_calls: number;
  held_calls: number;
  real_calls_during_rehearsal: number;
}

/**
 * The trials with test-time rehearsal: each one rehearsed privately by its policy, then committed
 * once in a fresh real environment from `envFactory` (src/testtime/episode.ts: only the committed
 * run reaches it, behind a guard). Results in job order, with each trial's and the run's figures.
 */
export async function runRehearsedEpisodes(
  jobs: readonly RehearsedJob[],
  rehearsal: RehearsalOptions,
  envFactory: EnvFactory,
  concurrency: number,
  onProgress: (done: number) => void,
): Promise<{ episodes: RehearsalEpisodeResult[]; perTrial: TrialRehearsal[]; total: RehearsalStats }> {
  const total = emptyRehearsalStats(rehearsal);
  const episodes = await mapConcurrent(
    jobs,
    concurrency,
    async ({ task, options }) => {
      const episode = await runEpisodeWithRehearsal(task, { ...options, envFactory, rehearsal });
      addRehearsalStats(total, episode.rehearsal);
      return episode;
    },
    (_r, _i, done) => onProgress(done),
  );
  const perTrial = episodes.map((e) => ({
    rehearsal_tokens: e.rehearsal.tokens.total,
    rehearsal_calls: rehearsalCallCount(e.rehearsal),
    held_calls: e.rehearsal.heldCalls,
    real_calls_during_rehearsal: e.rehearsal.realCallsDuringRehearsal,
  }));
  return { episodes, perTrial, total };
}
