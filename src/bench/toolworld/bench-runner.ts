import { EnvaceError } from "../../core/errors.js";
import { mapConcurrent } from "../../core/map-concurrent.js";
import type { Task } from "../../core/task.js";
import {
  createToolworldEnv,
  generateTasks,
  TOOLWORLD_DOMAINS,
  toolworldWriteTools,
  type ToolworldSplit,
} from "../../envs/toolworld/index.js";
import {
  checkGuardTools,
  guardsWrites,
  rehearsalFromFlags,
  type RehearsalEvalFlags,
  REHEARSAL_FLAG_KEYS,
} from "../../testtime/eval-flags.js";
import { runEpisodeWithRehearsal, type RehearsalEpisodeResult } from "../../testtime/episode.js";
import { rehearsalCallCount } from "../../testtime/types.js";
import {
  addRehearsalStats,
  emptyRehearsalStats,
  rehearsalReport,
  type RehearsalReport,
} from "../../testtime/types.js";
import { passHatKs } from "../pass-hat-k.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import { policySource } from "./policy-source.js";

/** Held-out tasks are generated, not read: the same seed always gives the same tasks. */
export const TOOLWORLD_EVAL_SEED = 0;
export const TOOLWORLD_DEFAULT_TASKS = 20;

export interface ToolworldTrialResult {
  task_id: string;
  trial: number;
  reward: number;
  success: boolean;
  end_reason: string;
  /** Calls that reached the real environment. */
  real_calls: number;
  rehearsal_tokens: number;
  rehearsal_calls: number;
  /** Calls the commit guard held back in this trial (`--guard-tools`). */
  held_calls: number;
  real_calls_during_rehearsal: number;
  error?: string;
}

export interface ToolworldSummary extends BenchSummary {
  success_rate: number;
  real_calls: number;
  rehearsal: RehearsalReport;
  results: ToolworldTrialResult[];
}

/**
 * The tasks of one domain: held-out by default (`--split heldout|train`), `--limit` of them (20 by
 * default). Their `examples` are the gold run's calls, so they are removed: the rehearse role must
 * not see the answers.
 */
export function toolworldEvalTasks(
  domain: string,
  split: string | undefined,
  limit: number | undefined,
): Task[] {
  if (split !== undefined && split !== "heldout" && split !== "train") {
    throw new EnvaceError("INVALID_CONFIG", `unknown toolworld split "${split}"; use heldout or train`);
  }
  const tasks = generateTasks({
    domain,
    seed: TOOLWORLD_EVAL_SEED,
    count: limit ?? TOOLWORLD_DEFAULT_TASKS,
    split: (split ?? "heldout") as ToolworldSplit,
  });
  return tasks.map((t) => ({ ...t, examples: [] }));
}

function toResult(ep: RehearsalEpisodeResult, trial: number): ToolworldTrialResult {
  const r: ToolworldTrialResult = {
    task_id: ep.taskId,
    trial,
    reward: ep.reward ?? 0,
    success: ep.success,
    end_reason: ep.endReason,
    real_calls: ep.envCalls,
    rehearsal_tokens: ep.rehearsal.tokens.total,
    rehearsal_calls: rehearsalCallCount(ep.rehearsal),
    held_calls: ep.rehearsal.heldCalls,
    real_calls_during_rehearsal: ep.rehearsal.realCallsDuringRehearsal,
  };
  if (ep.error) r.error = ep.error;
  return r;
}

/** A BenchRunner whose summary is typed. */
export interface ToolworldBenchRunner extends BenchRunner {
  run(opts: EvalOptions): Promise<ToolworldSummary>;
}

/** `toolworld:<domain>` for `envace eval`: generated tasks in their real environment, with or without rehearsal. */
export function toolworldBenchRunner(): ToolworldBenchRunner {
  return {
    describe: `toolworld: ${TOOLWORLD_DOMAINS.map((d) => `toolworld:${d}`).join("|")}`,
    reads: ["checkpoint", ...REHEARSAL_FLAG_KEYS],
    async run(opts: EvalOptions): Promise<ToolworldSummary> {
      const o = opts as EvalOptions & RehearsalEvalFlags;
      if (!TOOLWORLD_DOMAINS.includes(o.variant)) {
        throw new EnvaceError(
          "INVALID_CONFIG",
          `unknown toolworld domain "${o.variant}"; use ${TOOLWORLD_DOMAINS.map((d) => `toolworld:${d}`).join(", ")}`,
        );
      }
      const rehearsal = rehearsalFromFlags(o);
      const guardWrites = guardsWrites(o);
      const tasks = toolworldEvalTasks(o.variant, o.split, o.limit);
      const domainTools = createToolworldEnv({ domain: o.variant, seed: TOOLWORLD_EVAL_SEED }).tools();
      checkGuardTools(
        rehearsal,
        domainTools.map((t) => t.name),
        `toolworld:${o.variant}`,
      );
      const jobs = tasks.flatMap((task) => Array.from({ length: o.trials }, (_, trial) => ({ task, trial })));
      const source = await policySource(o);
      o.onStart?.(jobs.length);
      const total = emptyRehearsalStats(rehearsal);
      let results: ToolworldTrialResult[];
      try {
        results = await mapConcurrent(
          jobs,
          o.concurrency,
          async ({ task, trial }) => {
            const ep = await runEpisodeWithRehearsal(task, {
              policy: source.forTask(task),
              envFactory: (t) => createToolworldEnv(t),
              rehearsal: guardWrites ? { ...rehearsal, guardTools: toolworldWriteTools(task) } : rehearsal,
              sample: trial,
              temperature: 0,
              ...(o.maxSteps !== undefined ? { maxAssistantTurns: o.maxSteps } : {}),
            });
            addRehearsalStats(total, ep.rehearsal);
            return toResult(ep, trial);
          },
          (_r, _i, done) => o.onProgress?.(done, jobs.length),
        );
      } finally {
        await source.close();
      }
      const byTask = tasks.map((t) => results.filter((r) => r.task_id === t.id).map((r) => r.success));
      const n = Math.max(1, results.length);
      return {
        bench: `toolworld:${o.variant}`,
        tasks: tasks.length,
        trials: o.trials,
        pass_hat_k: tasks.length > 0 ? passHatKs(byTask, o.trials) : {},
        reward_mean: results.reduce((s, r) => s + r.reward, 0) / n,
        success_rate: results.filter((r) => r.success).length / n,
        real_calls: results.reduce((s, r) => s + r.real_calls, 0),
        rehearsal: rehearsalReport(total, results.length),
        results,
      };
    },
  };
}
