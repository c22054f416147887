/**
 * Runs VitaBench tasks (each `trials` times), scores them with the rubric judge and computes
 * pass^k over the judged tasks. A task whose rubrics were not judged has a null reward: it counts
 * in `not_judged`, never as a failure, and pass^k / reward_mean cover the judged trials only.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { errorLine } from "../../core/errors.js";
import { join } from "node:path";
import type { ChatModel } from "../../core/model.js";
import { mapConcurrent } from "../../core/map-concurrent.js";
import { VitaEnvironment } from "../../envs/vita/environment.js";
import type { VitaClock } from "../../envs/vita/tool-context.js";
import { passHatKs } from "../pass-hat-k.js";
import type { VitaAgent, VitaUser } from "./agents.js";
import { evaluateRubrics, type RubricEvaluation } from "./rubric-judge.js";
import { runVitaEpisode, type VitaTermination } from "./run-episode.js";
import type { VitaTask } from "./types.js";

export interface VitaRunOptions {
  bench: string;
  tasks: VitaTask[];
  lang: "en" | "zh";
  agent: VitaAgent;
  user: VitaUser;
  judge?: ChatModel;
  trials?: number;
  maxSteps?: number;
  concurrency?: number;
  /** Writes `<task_id>.results.json` and `<task_id>.db.json` (trial k>0: `<task_id>.t<k>.*`). */
  dumpDbDir?: string;
  /** Order ids come from this clock (default: the wall clock, as upstream). */
  clock?: VitaClock;
  onResult?: (r: VitaTrialResult, done: number, total: number) => void;
}

export interface VitaTrialResult {
  task_id: string;
  trial: number;
  /** 1/0 as upstream; null when the rubrics were not judged. */
  reward: number | null;
  success: boolean | null;
  rubric_score: number | null;
  judge_status: RubricEvaluation["status"] | "skipped";
  rubrics: RubricEvaluation["rubrics"];
  termination: VitaTermination | "infrastructure_error";
  steps: number;
  tool_errors: number;
  db_hash?: string;
  note?: string;
  error?: string;
}

export interface VitaRunSummary {
  bench: string;
  tasks: number;
  trials: number;
  pass_hat_k: Record<number, number>;
  reward_mean: number;
  /** Trials whose rubrics were not judged (no judge, or the judge failed). */
  not_judged: number;
  results: VitaTrialResult[];
}

/** Upstream gives 0 without judging when the simulation ended prematurely. */
const PREMATURE: ReadonlySet<string> = new Set(["max_steps", "invalid_agent_message"]);

async function runTrial(o: VitaRunOptions, task: VitaTask, trial: number): Promise<VitaTrialResult> {
  const env = new VitaEnvironment(task.domain, task.environment, {
    lang: o.lang,
    ...(o.clock ? { clock: o.clock } : {}),
  });
  let episode;
  try {
    episode = await runVitaEpisode({
      task,
      env,
      agent: o.agent,
      user: o.user,
      lang: o.lang,
      ...(o.maxSteps !== undefined ? { maxSteps: o.maxSteps } : {}),
    });
  } catch (e) {
    return {
      task_id: task.id,
      trial,
      reward: null,
      success: null,
      rubric_score: null,
      judge_status: "skipped",
      rubrics: [],
      termination: "infrastructure_error",
      steps: 0,
      tool_errors: 0,
      error: errorLine(e),
    };
  }
  if (o.dumpDbDir) {
    const stem = join(o.dumpDbDir, trial === 0 ? task.id : `${task.id}.t${trial}`);
    writeFileSync(`${stem}.results.json`, JSON.stringify(episode.results, null, 2) + "\n");
    writeFileSync(`${stem}.db.json`, env.dumpJson() + "\n");
  }
  const base = {
    task_id: task.id,
    trial,
    termination: episode.termination,
    steps: episode.steps,
    tool_errors: episode.toolErrors,
    db_hash: env.hash(),
  };
  if (PREMATURE.has(episode.termination)) {
    return {
      ...base,
      reward: 0,
      success: false,
      rubric_score: null,
      judge_status: "skipped",
      rubrics: [],
      note: `Simulation terminated prematurely. Termination reason: ${episode.termination}`,
    };
  }
  const ev = await evaluateRubrics(task, episode.messages, {
    lang: o.lang,
    ...(o.judge ? { judge: o.judge } : {}),
  });
  return {
    ...base,
    reward: ev.reward,
    success: ev.reward === null ? null : ev.reward === 1,
    rubric_score: ev.rubric_score,
    judge_status: ev.status,
    rubrics: ev.rubrics,
    ...(ev.error ? { error: ev.error } : {}),
  };
}

export async function runVita(o: VitaRunOptions): Promise<VitaRunSummary> {
  const trials = o.trials ?? 1;
  const jobs = o.tasks.flatMap((task) => Array.from({ length: trials }, (_, trial) => ({ task, trial })));
  if (o.dumpDbDir) mkdirSync(o.dumpDbDir, { recursive: true });
  const results = await mapConcurrent(
    jobs,
    o.concurrency ?? 1,
    ({ task, trial }) => runTrial(o, task, trial),
    (r, _i, done) => o.onResult?.(r, done, jobs.length),
  );
  const judged = results.filter((r) => r.reward !== null);
  // pass^k over tasks every trial of which was judged.
  const byTask = o.tasks
    .map((t) => results.filter((r) => r.task_id === t.id))
    .filter((rs) => rs.length > 0 && rs.every((r) => r.success !== null))
    .map((rs) => rs.map((r) => r.success === true));
  return {
    bench: o.bench,
    tasks: o.tasks.length,
    trials,
    pass_hat_k: byTask.length > 0 ? passHatKs(byTask, trials) : {},
    reward_mean: judged.length > 0 ? judged.reduce((s, r) => s + (r.reward as number), 0) / judged.length : 0,
    not_judged: results.length - judged.length,
    results,
  };
}
