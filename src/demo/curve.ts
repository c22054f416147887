import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import type { Evaluator } from "../train/loop.js";
import type { EvalMetrics } from "../train/step-metrics.js";
import type { ArmSpec } from "./arms.js";
import { runEvalEpisodes, runRehearsedWorld } from "./evaluate.js";
import type { DemoRehearsalPrompt } from "./layout.js";

/** One point of an arm's success curve: real success, and success in its own rehearsed world. */
export interface CurvePoint {
  step: number;
  real: number;
  /** Rehearsal arms only: success inside the policy's own rehearsed world (no answer key). */
  rehearsed?: number;
}

const rate = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * The co-adaptation diagnostic over RL steps (issue 11): every `eval_every` steps, the policy runs a
 * fixed subset of env-less evaluation tasks in the real environments and, for rehearsal arms, in its
 * own rehearsed world; `rehearsed − real` growing over steps is actor and rehearser co-adapting to an
 * easier world. Points are appended to `file` (JSON lines) as they are measured; the report plots them.
 */
export function curveEvaluator(
  policy: ChatModel,
  tasks: readonly Task[],
  arm: ArmSpec,
  opts: { concurrency: number; file: string; variant: DemoRehearsalPrompt },
): Evaluator & { points: CurvePoint[] } {
  mkdirSync(dirname(opts.file), { recursive: true });
  const points: CurvePoint[] = [];
  return {
    points,
    async evaluate(step: number): Promise<EvalMetrics> {
      const real = await runEvalEpisodes(policy, tasks, { concurrency: opts.concurrency });
      const point: CurvePoint = { step, real: rate(real.success) };
      if (arm.rehearsedWorld) {
        point.rehearsed = rate(
          (await runRehearsedWorld(policy, tasks, opts.concurrency, opts.variant)).success,
        );
      }
      points.push(point);
      appendFileSync(opts.file, JSON.stringify(point) + "\n");
      return {
        success_rate: point.real,
        reward_mean: rate(real.reward),
        episodes: real.episodes.length,
        env_calls: real.envCalls,
      };
    },
  };
}
