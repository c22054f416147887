import { basename } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import type { ChatModel } from "../../core/model.js";
import type { Task } from "../../core/task.js";
import { OpenAIChatModel } from "../../engines/openai-chat-model.js";
import { environmentForTask, TASK_ENV_KINDS } from "../../envs/task-environment.js";
import { llmJudge } from "../../reward/llm-judge.js";
import { loadTasks } from "../../rollout/load-tasks.js";
import { rehearsalResponder } from "../../rollout/model-responder.js";
import { realResponder } from "../../rollout/real-responder.js";
import { runEpisodes, type EpisodeJob, type EpisodeProgress } from "../../rollout/scheduler.js";
import type { EpisodeResult } from "../../rollout/types.js";
import { openEvalModel } from "../../testtime/eval-model.js";
import {
  checkGuardTools,
  guardsWrites,
  rehearsalFromFlags,
  REHEARSAL_FLAG_KEYS,
  type RehearsalEvalFlags,
} from "../../testtime/eval-flags.js";
import {
  emptyRehearsalStats,
  rehearsalReport,
  type RehearsalOptions,
  type RehearsalReport,
  type RehearsalStats,
} from "../../testtime/types.js";
import { passHatKs } from "../pass-hat-k.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import { goldTaskModel, noopTaskModel, replayModels } from "./oracles.js";
import { runRehearsedEpisodes, type RehearsedJob, type TrialRehearsal } from "./rehearsed-episodes.js";
import { sampleLine, writeSamples } from "./samples-log.js";

/** `--env` for task files: the tasks' own real environment, or none (rehearsed by the policy). */
export type TaskEnvMode = "real" | "none";

export interface TaskTrialResult {
  task_id: string;
  trial: number;
  reward: number | null;
  success: boolean;
  end_reason: string;
  /** Calls that reached a real environment (0 with `--env none`). */
  env_calls: number;
  /** Calls answered by the policy's rehearsal (with `--env none`). */
  rehearsed_calls: number;
  masked: boolean;
  /** With `--rehearsal`: this trial's rehearsal tokens, model calls and held writes. */
  rehearsal_tokens?: number;
  rehearsal_calls?: number;
  held_calls?: number;
  /** Real calls the rehearsal attempted (refused by the guard): 0 unless something is wrong. */
  real_calls_during_rehearsal?: number;
  error?: string;
}

export interface TaskBenchSummary extends BenchSummary {
  /** Where tool calls were answered; "rehearsed" results are scored in the policy's own world. */
  environment: string;
  success_rate: number;
  env_calls: number;
  model: string;
  endpoint: string | null;
  date: string;
  /** Test-time rehearsal over the run (`mode: "none"` without `--rehearsal`). */
  rehearsal: RehearsalReport;
  results: TaskTrialResult[];
}

const usage = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);

/** Parses `--env`: real (default), none, or an env kind that every task must have. */
export function taskEnvMode(flag: string | undefined, tasks: readonly Task[]): TaskEnvMode {
  if (flag === "none") return "none";
  const kinds: readonly string[] = TASK_ENV_KINDS;
  if (flag !== undefined && flag !== "real" && !kinds.includes(flag)) {
    throw usage(`unknown --env "${flag}" for a task file; use real, none or one of ${kinds.join(", ")}`);
  }
  const without = tasks.filter(
    (t) => !t.env || (flag !== undefined && flag !== "real" && t.env.kind !== flag),
  );
  if (without.length > 0) {
    throw usage(
      `task ${without[0]!.id} has no ${flag && flag !== "real" ? `${flag} ` : ""}env to run in` +
        ` (${without.length} of ${tasks.length} tasks); give each task an env (docs/tasks.md) or pass --env none` +
        " to score the policy in its own rehearsed world",
    );
  }
  return "real";
}

interface Agent {
  forTask(task: Task): ChatModel;
  name: string;
  endpoint: string | null;
  close(): Promise<void>;
}

async function agentFor(o: EvalOptions & { checkpoint?: string }): Promise<Agent> {
  const given = [o.policy, o.endpoint, o.checkpoint].filter((x) => x !== undefined).length;
  if (given !== 1) {
    throw usage(
      "give exactly one agent: --policy gold|noop|replay:FILE, --endpoint URL --model NAME, or --checkpoint DIR",
    );
  }
  const oracle = (name: string, forTask: (t: Task) => ChatModel): Agent => ({
    forTask,
    name,
    endpoint: null,
    close: async () => {},
  });
  if (o.policy === "gold") return oracle("gold", goldTaskModel);
  if (o.policy === "noop") return oracle("noop", noopTaskModel);
  if (o.policy?.startsWith("replay:"))
    return oracle(o.policy, replayModels(o.policy.slice("replay:".length)));
  if (o.policy !== undefined) throw usage(`unknown --policy "${o.policy}"; use gold, noop or replay:FILE`);
  const { model, close } = await openEvalModel(o);
  return {
    forTask: () => model,
    name: o.model ?? (o.checkpoint ? `checkpoint:${o.checkpoint}` : "model"),
    endpoint: o.endpoint ?? null,
    close,
  };
}

/**
 * `--rehearsal` and its flags for a task file: rehearsing needs the tasks' real environments (with
 * `--env none` every call is rehearsed already), and `--guard-tools` names tools of the file (a task
 * file does not say which of its tools write, so `writes` is refused).
 */
function taskRehearsal(o: RehearsalEvalFlags, tasks: readonly Task[], mode: TaskEnvMode): RehearsalOptions {
  if (guardsWrites(o)) {
    throw usage(
      "--guard-tools writes: a task file does not say which tools write; name them (--guard-tools a,b)",
    );
  }
  const rehearsal = rehearsalFromFlags(o);
  const tools = [...new Set(tasks.flatMap((t) => t.tools.map((tool) => tool.name)))];
  checkGuardTools(rehearsal, tools, "this task file");
  if (rehearsal.mode !== "none" && mode === "none") {
    throw usage(
      "--rehearsal rehearses before acting in the tasks' real environments; with --env none every call is rehearsed already",
    );
  }
  return rehearsal;
}

/**
 * `tasks:FILE` for `envace eval`: any task file, against each task's real environment (a fresh one
 * per episode), or with `--env none` in the world the policy rehearses for itself. With
 * `--rehearsal`, each episode is first rehearsed privately and then committed once in the real
 * environment (src/testtime/). Standards without a rule need `--judge-endpoint`. When every episode
 * failed on the model (a wrong URL), the run is an error, not a table of zeros.
 */
export function tasksBenchRunner(): BenchRunner {
  return {
    describe: "task files: tasks:FILE.jsonl [--env real|none] (docs/tasks.md)",
    reads: ["env", "logSamples", "judgeEndpoint", "judgeModel", "checkpoint", ...REHEARSAL_FLAG_KEYS],
    async run(opts: EvalOptions): Promise<TaskBenchSummary> {
      const o = opts as EvalOptions &
        RehearsalEvalFlags & { env?: string; checkpoint?: string; logSamples?: string };
      if (o.variant === "") throw usage("tasks: needs a file, e.g. --bench tasks:my-tasks.jsonl");
      let tasks = await loadTasks(o.variant);
      if (o.limit !== undefined) tasks = tasks.slice(0, o.limit);
      if (tasks.length === 0) throw usage(`${o.variant}: no tasks`);
      const mode = taskEnvMode(o.env, tasks);
      const rehearsal = taskRehearsal(o, tasks, mode);
      const needsJudge = tasks.some((t) => t.checklists.flat(2).some((s) => s.rule === undefined));
      if (needsJudge && (o.judgeEndpoint === undefined || o.judgeModel === undefined)) {
        throw usage(
          "some standards have no rule: give --judge-endpoint URL --judge-model NAME to score them",
        );
      }
      const judge = needsJudge
        ? llmJudge(
            new OpenAIChatModel({
              baseURL: o.judgeEndpoint!,
              model: o.judgeModel!,
              ...(o.apiKey ? { apiKey: o.apiKey } : {}),
            }),
          )
        : undefined;
      const agent = await agentFor(o);
      const jobs: RehearsedJob[] = tasks.flatMap((task) =>
        Array.from({ length: o.trials }, (_, trial) => ({
          task,
          options: {
            policy: agent.forTask(task),
            sample: trial,
            temperature: 0,
            ...(o.maxSteps !== undefined ? { maxAssistantTurns: o.maxSteps } : {}),
            ...(judge ? { judge } : {}),
          },
        })),
      );
      o.onStart?.(jobs.length);
      const onProgress = (done: number) => o.onProgress?.(done, jobs.length);
      let run: { episodes: EpisodeResult[]; perTrial?: TrialRehearsal[]; total?: RehearsalStats };
      try {
        if (rehearsal.mode !== "none") {
          run = await runRehearsedEpisodes(jobs, rehearsal, environmentForTask, o.concurrency, onProgress);
        } else {
          const plain: EpisodeJob[] = jobs.map(({ task, options }) => ({
            task,
            options: {
              ...options,
              responder:
                mode === "real"
                  ? realResponder(environmentForTask)
                  : rehearsalResponder(options.policy, { temperature: 0 }),
            },
          }));
          const progress = (p: EpisodeProgress) => onProgress(p.done);
          run = { episodes: await runEpisodes(plain, { concurrency: o.concurrency, onProgress: progress }) };
        }
      } finally {
        await agent.close();
      }
      const episodes = run.episodes;
      const failed = episodes.filter((e) => e.endReason === "model_error");
      if (failed.length === episodes.length) {
        throw new EnvaceError(
          "ENDPOINT_ERROR",
          `every episode (${episodes.length}) failed on the agent model: ${failed[0]?.error ?? "unknown error"}`,
        );
      }
      if (o.logSamples !== undefined) {
        const byId = new Map(tasks.map((t) => [t.id, t]));
        writeSamples(
          o.logSamples,
          episodes.map((e) => sampleLine(byId.get(e.taskId)!, e)),
        );
      }
      const results = episodes.map((e, i): TaskTrialResult => ({
        task_id: e.taskId,
        trial: e.sample,
        reward: e.reward ?? null,
        success: e.success,
        end_reason: e.endReason,
        env_calls: e.envCalls,
        rehearsed_calls: e.calls.filter((c) => c.source === "rehearsal").length,
        masked: e.masked,
        ...(run.perTrial?.[i] ?? {}),
        ...(e.error ? { error: e.error } : {}),
      }));
      const scored = results.filter((r) => r.reward !== null);
      const byTask = tasks.map((t) => results.filter((r) => r.task_id === t.id).map((r) => r.success));
      const kinds = [...new Set(tasks.map((t) => t.env?.kind ?? "none"))].join(",");
      return {
        bench: `tasks:${basename(o.variant)}`,
        tasks: tasks.length,
        trials: o.trials,
        environment:
          mode === "real"
            ? `real (${kinds})`
            : "rehearsed: no real environment; tool results are the policy's own, so rewards measure its imagined world",
        pass_hat_k: passHatKs(byTask, o.trials),
        reward_mean: scored.reduce((a, r) => a + r.reward!, 0) / Math.max(1, scored.length),
        success_rate: results.filter((r) => r.success).length / results.length,
        env_calls: results.reduce((a, r) => a + r.env_calls, 0),
        model: agent.name,
        endpoint: agent.endpoint,
        date: new Date().toISOString(),
        rehearsal: rehearsalReport(run.total ?? emptyRehearsalStats(rehearsal), results.length),
        results,
      };
    },
  };
}
