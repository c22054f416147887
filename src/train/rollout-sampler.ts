import type { ChatModel } from "../core/model.js";
import { withSamplingSeeds } from "../core/sampling-seeds.js";
import type { Task } from "../core/task.js";
import type { Judge } from "../reward/types.js";
import type { Responder } from "../rollout/responder.js";
import { groupJobs, runEpisodes } from "../rollout/scheduler.js";
import type { EpisodeResult } from "../rollout/types.js";
import type { LoopConfig } from "./config.js";
import type { EpisodeSampler } from "./loop.js";

export interface RolloutSamplerOptions {
  /** The trained policy (acts; in rehearsal mode its `responder` rehearses too). */
  policy: ChatModel;
  /** Answers tool calls: rehearsal (the policy), simulator (frozen model) or real (environment). */
  responder: Responder;
  judge?: Judge;
  config: Pick<LoopConfig, "limits" | "temperature" | "concurrency" | "example_cache" | "invalid_call"> &
    Partial<Pick<LoopConfig, "seed">>;
  /** Called as each episode finishes (progress bars). */
  onEpisode?: (done: number, total: number, last: EpisodeResult) => void;
}

/**
 * The loop's sampler over rollout/: G episodes per task, run concurrently by the async scheduler.
 * Judge time is measured by wrapping the judge (it runs inside the episodes, interleaved).
 */
export function rolloutSampler(opts: RolloutSamplerOptions): EpisodeSampler {
  const { config: c } = opts;
  return {
    async sampleGroups(tasks: Task[], { groupSize, step }) {
      let judgeSeconds = 0;
      const judge: Judge | undefined = opts.judge && {
        judge: async (input) => {
          const t0 = performance.now();
          try {
            return await opts.judge!.judge(input);
          } finally {
            judgeSeconds += (performance.now() - t0) / 1000;
          }
        },
      };
      const jobs = groupJobs(tasks, groupSize, {
        policy: opts.policy,
        responder: opts.responder,
        maxAssistantTurns: c.limits.max_assistant_turns,
        turnLimitScope: c.limits.turn_limit_scope,
        ...(c.limits.max_parallel_calls !== undefined
          ? { maxParallelCalls: c.limits.max_parallel_calls }
          : {}),
        invalidCall: c.invalid_call,
        contextBudgetTokens: c.limits.context_budget,
        maxTokens: c.limits.max_tokens,
        temperature: c.temperature,
        exampleCache: c.example_cache,
        ...(judge ? { judge } : {}),
      });
      const episodes = await runEpisodes(jobs, {
        concurrency: c.concurrency,
        // Each episode's requests are seeded from (seed, step, task, sample, call index).
        ...(c.seed !== undefined
          ? {
              around: (job, run) =>
                withSamplingSeeds(
                  { seed: c.seed!, step, task: job.task.id, sample: job.options.sample ?? 0 },
                  run,
                ),
            }
          : {}),
        ...(opts.onEpisode ? { onProgress: (p) => opts.onEpisode!(p.done, p.total, p.last) } : {}),
      });
      // jobs are task-major: episodes [t*G, (t+1)*G) are task t's group
      const groups = tasks.map((_, t) => episodes.slice(t * groupSize, (t + 1) * groupSize));
      return { groups, judgeSeconds };
    },
  };
}
