import type { ChatModel } from "../core/model.js";
import { withSamplingSeeds } from "../core/sampling-seeds.js";
import type { Task } from "../core/task.js";
import type { Judge } from "../reward/types.js";
import { realResponder, type EnvFactory } from "../rollout/real-responder.js";
import { groupJobs, runEpisodes } from "../rollout/scheduler.js";
import type { TrainConfig } from "./config.js";
import type { Evaluator } from "./loop.js";
import { mean, type EvalMetrics } from "./step-metrics.js";

/** Held-out evaluation: the current policy acts against real environments on the eval tasks. */
export function realEnvEvaluator(opts: {
  policy: ChatModel;
  tasks: Task[];
  envFactory: EnvFactory;
  judge?: Judge;
  config: Pick<TrainConfig, "limits" | "eval_samples" | "eval_temperature" | "concurrency"> &
    Partial<Pick<TrainConfig, "seed">>;
}): Evaluator {
  const { config: c } = opts;
  return {
    async evaluate(step: number): Promise<EvalMetrics> {
      const jobs = groupJobs(opts.tasks, c.eval_samples, {
        policy: opts.policy,
        responder: realResponder(opts.envFactory),
        maxAssistantTurns: c.limits.max_assistant_turns,
        maxParallelCalls: c.limits.max_parallel_calls,
        contextBudgetTokens: c.limits.context_budget,
        maxTokens: c.limits.max_tokens,
        temperature: c.eval_temperature,
        ...(opts.judge ? { judge: opts.judge } : {}),
      });
      // Seeded per request like the training rollouts (eval_temperature > 0 samples), under a task
      // key of their own so that an evaluation never replays a training episode's draws.
      const seed = c.seed;
      const eps = await runEpisodes(jobs, {
        concurrency: c.concurrency,
        ...(seed !== undefined
          ? {
              around: (job, run) =>
                withSamplingSeeds(
                  { seed, step, task: `eval:${job.task.id}`, sample: job.options.sample ?? 0 },
                  run,
                ),
            }
          : {}),
      });
      const live = eps.filter((e) => !e.masked && e.reward !== undefined);
      return {
        success_rate: eps.length ? eps.filter((e) => e.success).length / eps.length : 0,
        reward_mean: mean(live.map((e) => e.reward!)),
        episodes: eps.length,
        env_calls: eps.reduce((a, e) => a + e.envCalls, 0),
      };
    },
  };
}
