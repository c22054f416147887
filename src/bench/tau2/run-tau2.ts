import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ChatModel } from "../../core/model.js";
import { EnvaceError, errorLine } from "../../core/errors.js";
import { mapConcurrent } from "../../core/map-concurrent.js";
import { isSuccessful, passHatKs } from "../pass-hat-k.js";
import type { Tau2Agent } from "./agent.js";
import type { Tau2DomainLike } from "./env-port.js";
import { evaluateEpisode } from "./evaluate.js";
import { runEpisode, type EpisodeResult } from "./run-episode.js";
import type { ComponentResult, RewardType, Tau2TaskView, Termination } from "./types.js";
import type { Tau2UserSimulator } from "./user-simulator.js";

export interface Tau2RunOptions {
  /** Shown in the summary, e.g. `tau2:retail`. */
  bench: string;
  domain: Tau2DomainLike;
  /** Official split name; all tasks when absent. */
  split?: string;
  /** Only the first N tasks (after the split). */
  limit?: number;
  trials?: number;
  agent: Tau2Agent;
  user: Tau2UserSimulator;
  judge?: ChatModel;
  maxSteps?: number;
  maxErrors?: number;
  /** Episodes run at once (default 1). */
  concurrency?: number;
  /** See EpisodeOptions.validateCalls. */
  validateCalls?: boolean;
  /** Writes `<task_id>.db.json` and `<task_id>.results.json` per task (trial k>0: `<task_id>.t<k>.*`). */
  dumpDbDir?: string;
  onResult?: (result: Tau2TrialResult, done: number, total: number) => void;
}

export interface Tau2TrialResult {
  task_id: string;
  trial: number;
  reward: number;
  success: boolean;
  components: Partial<Record<RewardType, ComponentResult>>;
  reward_basis: RewardType[];
  /** Why the episode ended; `infrastructure_error` when a model endpoint failed. */
  termination: Termination | "infrastructure_error";
  steps: number;
  tool_errors: number;
  /** Successful transfers to a human agent (they do not end the episode, as upstream). */
  transfers?: number;
  note?: string;
  error?: string;
}

export interface Tau2RunSummary {
  bench: string;
  tasks: number;
  trials: number;
  pass_hat_k: Record<number, number>;
  reward_mean: number;
  results: Tau2TrialResult[];
}

/** The tasks of a split (all tasks when no split), in file order, first `limit` of them. */
export function selectTasks<T extends Tau2TaskView>(
  domain: Tau2DomainLike<T>,
  split?: string,
  limit?: number,
): T[] {
  let tasks = domain.tasks;
  split ??= domain.defaultSplit;
  if (split !== undefined) {
    const ids = domain.splits[split];
    if (!ids) {
      throw new EnvaceError(
        "INVALID_CONFIG",
        `unknown split "${split}" for ${domain.name}; splits: ${Object.keys(domain.splits).join(", ") || "(none)"}`,
      );
    }
    const wanted = new Set(ids);
    tasks = tasks.filter((t) => wanted.has(t.id));
  }
  return limit !== undefined ? tasks.slice(0, limit) : tasks;
}

/** Runs every selected task `trials` times, scores each episode, and computes pass^k. */
export async function runTau2(opts: Tau2RunOptions): Promise<Tau2RunSummary> {
  const tasks = selectTasks(opts.domain, opts.split, opts.limit);
  const trials = opts.trials ?? 1;
  const jobs = tasks.flatMap((task) => Array.from({ length: trials }, (_, trial) => ({ task, trial })));
  if (opts.dumpDbDir) mkdirSync(opts.dumpDbDir, { recursive: true });
  const results: Tau2TrialResult[] = await mapConcurrent(
    jobs,
    opts.concurrency ?? 1,
    ({ task, trial }) => runTrial(opts, task, trial),
    (r, _i, done) => opts.onResult?.(r, done, jobs.length),
  );

  const successesByTask = tasks.map((t) => results.filter((r) => r.task_id === t.id).map((r) => r.success));
  const rewardMean = results.length > 0 ? results.reduce((s, r) => s + r.reward, 0) / results.length : 0;
  return {
    bench: opts.bench,
    tasks: tasks.length,
    trials,
    pass_hat_k: tasks.length > 0 ? passHatKs(successesByTask, trials) : {},
    reward_mean: rewardMean,
    results,
  };
}

async function runTrial(opts: Tau2RunOptions, task: Tau2TaskView, trial: number): Promise<Tau2TrialResult> {
  let episode: EpisodeResult;
  try {
    episode = await runEpisode({
      domain: opts.domain,
      task,
      agent: opts.agent,
      user: opts.user,
      ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
      ...(opts.maxErrors !== undefined ? { maxErrors: opts.maxErrors } : {}),
      ...(opts.validateCalls !== undefined ? { validateCalls: opts.validateCalls } : {}),
    });
  } catch (e) {
    // A dead agent or user endpoint: the trial did not run, which is not the agent's 0 — say so.
    return {
      task_id: task.id,
      trial,
      reward: 0,
      success: false,
      components: {},
      reward_basis: [],
      termination: "infrastructure_error",
      steps: 0,
      tool_errors: 0,
      error: errorLine(e),
    };
  }
  const evaluation = await evaluateEpisode({
    domain: opts.domain,
    task,
    messages: episode.messages,
    initialCount: episode.initialCount,
    termination: episode.termination,
    ...(opts.judge ? { judge: opts.judge } : {}),
  });
  await evaluation.predictedEnv?.close?.();
  if (opts.dumpDbDir) dumpEpisode(opts.dumpDbDir, task.id, trial, episode, opts.domain.dualControl === true);
  await episode.env.close?.();
  return {
    task_id: task.id,
    trial,
    reward: evaluation.reward,
    success: isSuccessful(evaluation.reward),
    components: evaluation.components,
    reward_basis: evaluation.rewardBasis,
    termination: episode.termination,
    steps: episode.steps,
    tool_errors: episode.toolErrors,
    ...(episode.transfers > 0 ? { transfers: episode.transfers } : {}),
    ...(evaluation.note ? { note: evaluation.note } : {}),
  };
}

/**
 * The final DB (model_dump's JSON mode) and the result strings of the agent's calls, in order. In a
 * dual-control domain the user's device is state too: the file holds `{agent, user}`.
 */
function dumpEpisode(
  dir: string,
  taskId: string,
  trial: number,
  episode: EpisodeResult,
  dual: boolean,
): void {
  const stem = join(dir, trial === 0 ? taskId : `${taskId}.t${trial}`);
  const results = episode.messages
    .slice(episode.initialCount)
    .filter((m) => m.role === "tool" && m.requestor !== "user")
    .map((m) => m.content);
  const env = episode.env;
  const db = dual ? { agent: env.dumpDb(), user: env.dumpUserDb?.() ?? null } : env.dumpDb();
  writeFileSync(`${stem}.db.json`, JSON.stringify(db, null, 2) + "\n");
  writeFileSync(`${stem}.results.json`, JSON.stringify(results, null, 2) + "\n");
}
