import { canonicalJson } from "../core/canonical-json.js";
import type { Example, Task } from "../core/task.js";
import { domainSpec, writeToolNames, type GoldRun } from "../envs/toolworld/index.js";
import { parseMaybeJson } from "../bench/fidelity.js";
import type { EpisodeResult } from "../rollout/types.js";
import type { EpisodeSampler } from "../train/loop.js";
import { isRefusal } from "./refusal-recall.js";
import { callKey, worldKey } from "./worlds.js";

/**
 * What the past agent's logs say each call returns on each world, before anything was written:
 * `world + call` → the logged result (canonical JSON), for the calls every log agrees on.
 *
 * Why only the untouched world: a result after a write depends on that write, and an RL episode
 * that makes the call first would be scored against the wrong state. So a run's calls count up to
 * and including its first accepted write (a refused write changes nothing). Calls whose logged
 * results disagree (the same call after different histories) are left out.
 */
export type LoggedAnswerBook = ReadonlyMap<string, string>;

export function loggedAnswerBook(logs: readonly { task: Task; run: GoldRun }[]): LoggedAnswerBook {
  return answerBook(logs.map(({ task, run }) => ({ task, calls: run.turns.flatMap((t) => t.calls) })));
}

/**
 * The same book from the RL tasks' own recorded calls (`task.examples`: the reference's
 * `tool_call_response_map`) rather than the past agent's logs: the demo's `rehearseReward:
 * "recorded"`. With `worldDrift` these are the new snapshot's answers, which the logs never saw.
 */
export function recordedAnswerBook(tasks: readonly Task[]): LoggedAnswerBook {
  return answerBook(
    tasks.map((task) => ({ task, calls: task.examples.map((e) => ({ call: e, result: e.result })) })),
  );
}

/** A call with its answer, as a log or a task's recording holds it. */
interface AnsweredCall {
  call: Pick<Example, "name" | "arguments">;
  result: unknown;
}

/** The book of `runs`' calls (each run's up to its first accepted write; disagreements left out). */
function answerBook(runs: readonly { task: Task; calls: readonly AnsweredCall[] }[]): LoggedAnswerBook {
  const seen = new Map<string, string | null>();
  for (const { task, calls } of runs) {
    const world = worldKey(task);
    if (!world) continue;
    const writes = new Set(writeToolNames(domainSpec(task.domain)));
    for (const c of calls) {
      const key = `${world} ${callKey(c.call)}`;
      const result = canonicalJson(c.result);
      const before = seen.get(key);
      seen.set(key, before === undefined || before === result ? result : null);
      if (writes.has(c.call.name) && !isRefusal(c.result)) break;
    }
  }
  const book = new Map<string, string>();
  for (const [key, result] of seen) if (result !== null) book.set(key, result);
  return book;
}

/**
 * Each rehearse row of `episode` that answered a call the book knows, scored 1 if its answer is the
 * logged one and 0 otherwise (`Row.reward`); other rows keep the episode's reward. Only calls made
 * before the episode's first write are scored (after it, its world is no longer the logged one).
 * Returns how many rows were scored and how many of them were right.
 */
export function scoreRehearsalsAgainstLogs(
  episode: EpisodeResult,
  task: Task,
  book: LoggedAnswerBook,
): { episode: EpisodeResult; scored: number; right: number } {
  const world = worldKey(task);
  if (!world) return { episode, scored: 0, right: 0 };
  const writes = new Set(writeToolNames(domainSpec(task.domain)));
  const firstWrite = episode.calls.findIndex((c) => c.source !== "validation" && writes.has(c.call.name));
  let scored = 0;
  let right = 0;
  const rows = episode.rows.map((row) => {
    if (row.role !== "rehearse" || row.callIndex === undefined) return row;
    if (firstWrite >= 0 && row.callIndex > firstWrite) return row;
    const record = episode.calls[row.callIndex];
    const logged = record ? book.get(`${world} ${callKey(record.call)}`) : undefined;
    if (!record || logged === undefined) return row;
    const reward = canonicalJson(parseMaybeJson(record.result)) === logged ? 1 : 0;
    scored++;
    right += reward;
    return { ...row, reward };
  });
  return { episode: { ...episode, rows }, scored, right };
}

/**
 * `sampler` with every rehearsal of a logged call scored against the logs
 * (`scoreRehearsalsAgainstLogs`), the demo's `rehearseReward: "logged"` experiment: a rehearse
 * signal for being right, which the reference's task reward does not give (a forbidden write fails
 * its episode whatever the rehearsal answers). `onScored` gets each step's counts.
 */
export function withLoggedRehearseReward(
  sampler: EpisodeSampler,
  tasks: readonly Task[],
  book: LoggedAnswerBook,
  onScored?: (counts: { scored: number; right: number }) => void,
): EpisodeSampler {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  return {
    async sampleGroups(batch, opts) {
      const out = await sampler.sampleGroups(batch, opts);
      const counts = { scored: 0, right: 0 };
      const groups = out.groups.map((g) =>
        g.map((e) => {
          const task = byId.get(e.taskId);
          if (!task || e.masked) return e;
          const s = scoreRehearsalsAgainstLogs(e, task, book);
          counts.scored += s.scored;
          counts.right += s.right;
          return s.episode;
        }),
      );
      onScored?.(counts);
      return { ...out, groups };
    },
  };
}
