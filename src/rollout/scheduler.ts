import { mapConcurrent } from "../core/map-concurrent.js";
import type { Task } from "../core/task.js";
import { runEpisode, type EpisodeOptions } from "./episode.js";
import type { EpisodeResult } from "./types.js";

export interface EpisodeJob {
  task: Task;
  options: EpisodeOptions;
}

export interface EpisodeProgress {
  done: number;
  total: number;
  running: number;
  /** The episode that just finished. */
  last: EpisodeResult;
}

export interface RunEpisodesOptions {
  /** Episodes in progress at once (each has at most one act call, or its calls' answers, in flight). */
  concurrency: number;
  onProgress?: (p: EpisodeProgress) => void;
  /** Runs each episode inside a context of the caller's (training opens its sampling-seed scope). */
  around?: (job: EpisodeJob, run: () => Promise<EpisodeResult>) => Promise<EpisodeResult>;
}

/**
 * Runs episodes concurrently and independently: each proceeds as soon as its own model call
 * returns, never waiting for the others (no step-synchronous batching). The bound on model calls
 * in flight across endpoints comes from the models the jobs share (an `EndpointPool` with
 * `maxInFlight`, or `boundedChatModel`). Results come back in job order.
 */
export async function runEpisodes(
  jobs: readonly EpisodeJob[],
  opts: RunEpisodesOptions,
): Promise<EpisodeResult[]> {
  let running = 0;
  return mapConcurrent(
    jobs,
    opts.concurrency,
    async (job) => {
      running++;
      try {
        const run = () => runEpisode(job.task, job.options);
        return await (opts.around ? opts.around(job, run) : run());
      } finally {
        running--;
      }
    },
    (last, _i, done) => opts.onProgress?.({ done, total: jobs.length, running, last }),
  );
}

/** G jobs per task (samples 0..G-1), all with the same options. */
export function groupJobs(
  tasks: readonly Task[],
  groupSize: number,
  options: Omit<EpisodeOptions, "sample">,
): EpisodeJob[] {
  return tasks.flatMap((task) =>
    Array.from({ length: groupSize }, (_, g) => ({ task, options: { ...options, sample: g } })),
  );
}
