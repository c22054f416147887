import type { ChatModel } from "../core/model.js";
import { withSamplingSeeds } from "../core/sampling-seeds.js";
import type { Task } from "../core/task.js";
import { createToolworldEnv } from "../envs/toolworld/index.js";
import { realResponder } from "../rollout/real-responder.js";
import { runEpisodes } from "../rollout/scheduler.js";
import { evalEpisodeOptions } from "./evaluate.js";
import { ownCallProbes, type RehearsalProbe } from "./fidelity-probes.js";

export interface TrainingCallOptions {
  /** Episodes per task (the actor samples, as in an RL group). */
  samples: number;
  /** The actor's sampling temperature (RL's is 1). */
  temperature: number;
  /** Seeds the actor's draws (per task and sample), so the same options give the same calls. */
  seed: number;
  concurrency: number;
}

/**
 * The calls an actor makes on training tasks, as RL's rollouts would make them (sampled, each task
 * `samples` times), answered by the real environment, as rehearsal probes: what a rehearser must
 * answer during RL, with the right answer beside it. The tasks keep their own recorded calls as
 * `examples`, as in training, so a probe whose exact call was recorded has its answer in the prompt
 * (`answerInPrompt`) and the others (the actor's own mistakes and variations) do not. Why: whether a
 * co-trained rehearser can give RL a better world than the frozen SFT one depends on how often the
 * SFT one is wrong on *these* calls, not on the evaluation's (issue 11: `envace` vs `simulator`).
 */
export async function trainingCallProbes(
  actor: ChatModel,
  tasks: readonly Task[],
  opts: TrainingCallOptions,
): Promise<RehearsalProbe[]> {
  const responder = realResponder((t) => createToolworldEnv(t));
  const jobs = tasks.flatMap((task) =>
    Array.from({ length: opts.samples }, (_, sample) => ({
      task,
      options: { ...evalEpisodeOptions(actor, responder), sample, temperature: opts.temperature },
    })),
  );
  const episodes = await runEpisodes(jobs, {
    concurrency: opts.concurrency,
    around: (job, run) =>
      withSamplingSeeds(
        { seed: opts.seed, step: 0, task: job.task.id, sample: job.options.sample ?? 0 },
        run,
      ),
  });
  return ownCallProbes(
    jobs.map((j) => j.task),
    episodes,
  );
}
