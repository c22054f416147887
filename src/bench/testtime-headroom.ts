import { mapConcurrent } from "../core/map-concurrent.js";
import type { Task } from "../core/task.js";
import {
  runEpisodeWithRehearsal,
  testTimeSeeds,
  type RehearsalEpisodeOptions,
  type RehearsalEpisodeResult,
} from "../testtime/episode.js";
import type { RehearsalOptions } from "../testtime/types.js";
import { attemptSignature, callSignature, isErrorResult } from "../testtime/consensus.js";
import { countFailures, type FailureCounts } from "./failure-kinds.js";
import { replayImaginedError, type ErrorReplay } from "./imagined-error-replay.js";

/**
 * Can test-time rehearsal help this policy on these tasks, and where does it lose? (issue 11: the
 * "parallel:4 ≥ none + 3" target.) A note can only steer the committed run toward something the
 * rehearsal showed: so this measures, per task, the policy without rehearsal, with it, and with
 * `samples` plain real runs at the attempts' temperature — their best (pass@samples) bounds what
 * choosing among the policy's own tries could reach — and, per rehearsed turn, whether the attempts
 * differed at all, whether an imagined result was an error (the one kind of news a rehearsal
 * brings: a tool that said no) and whether the real tool said no too (`replayImaginedError`), and
 * which attempt the committed run followed.
 */
export interface HeadroomOptions {
  /** Everything of the episodes but the rehearsal: policy, environment factory, limits, temperature. */
  episode: Omit<RehearsalEpisodeOptions, "rehearsal">;
  /** The rehearsed runs' options (mode, n, memory, attempts' temperature…), or a task's own. */
  rehearsal: RehearsalOptions | ((task: Task) => RehearsalOptions);
  /** Plain real runs per task at `sampleTemperature`. */
  samples: number;
  sampleTemperature: number;
  /** Tasks measured at once. */
  concurrency: number;
  /** Seeds the sampled requests per task (`testTimeSeeds`), as the demo's rows do; default unseeded. */
  seed?: number;
}

/** One task's measurements (exported for tests and for a report built from saved rows). */
export interface HeadroomTaskRow {
  taskId: string;
  none: boolean;
  rehearsed: boolean;
  samples: boolean[];
  /** Per rehearsed turn: the attempts' and the committed run's call signatures, and imagined errors. */
  turns: {
    attempts: string[];
    attemptErrors: number[];
    /** Per attempt that imagined a tool refusing: did the real tool refuse that call too? */
    errorReplays: ErrorReplay[];
    committed: string;
    none: string;
  }[];
}

export interface HeadroomReport {
  tasks: number;
  /** Success shares without rehearsal and with it. */
  none: number;
  rehearsed: number;
  /** Tasks the rehearsal turned from failed to passed, and from passed to failed. */
  helped: number;
  hurt: number;
  /** Plain runs at the attempts' temperature: mean success, and the share of tasks one of them passed. */
  sample_success: number;
  pass_at_samples: number;
  /** Rehearsed turns measured, and the share whose attempts all made the same calls and ended alike. */
  rehearsed_turns: number;
  attempts_identical: number;
  /** Mean number of different attempts per rehearsed turn. */
  distinct_attempts: number;
  /** Share of attempts with at least one imagined error result (a tool that said no). */
  attempts_with_imagined_error: number;
  /** Attempts whose imagined refusal was replayed in the real environment, and the share it confirmed. */
  imagined_errors_replayed: number;
  imagined_errors_confirmed: number;
  /** Share of rehearsed turns whose committed run made the same calls as the run without rehearsal. */
  committed_same_as_none: number;
  /** … the same calls as one of the attempts, and as the most frequent attempt. */
  committed_matches_an_attempt: number;
  committed_matches_majority: number;
  failures: { none: FailureCounts; rehearsed: FailureCounts };
}

function turnSignature(ep: RehearsalEpisodeResult, turn: number): string {
  return callSignature(
    ep.calls.filter((c) => c.turn === turn),
    ep.replies.length > turn,
  );
}

function majority(xs: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const x of xs) counts.set(x, (counts.get(x) ?? 0) + 1);
  let best: string | undefined;
  for (const [x, n] of counts) if (best === undefined || n > counts.get(best)!) best = x;
  return best;
}

/** The report of measured rows (`failures` are added by `measureHeadroom`, which has the episodes). */
export function headroomReport(rows: readonly HeadroomTaskRow[]): Omit<HeadroomReport, "failures"> {
  const share = (k: number, n: number) => (n > 0 ? k / n : 0);
  const count = <T>(xs: readonly T[], f: (x: T) => boolean) => xs.filter(f).length;
  const turns = rows.flatMap((r) => r.turns);
  const attempts = turns.reduce((a, t) => a + t.attempts.length, 0);
  const replays = turns.flatMap((t) => t.errorReplays);
  return {
    tasks: rows.length,
    none: share(
      count(rows, (r) => r.none),
      rows.length,
    ),
    rehearsed: share(
      count(rows, (r) => r.rehearsed),
      rows.length,
    ),
    helped: count(rows, (r) => !r.none && r.rehearsed),
    hurt: count(rows, (r) => r.none && !r.rehearsed),
    sample_success: share(
      rows.reduce((a, r) => a + share(count(r.samples, Boolean), r.samples.length), 0),
      rows.length,
    ),
    pass_at_samples: share(
      count(rows, (r) => r.samples.some(Boolean)),
      rows.length,
    ),
    rehearsed_turns: turns.length,
    attempts_identical: share(
      count(turns, (t) => new Set(t.attempts).size <= 1),
      turns.length,
    ),
    distinct_attempts: share(
      turns.reduce((a, t) => a + new Set(t.attempts).size, 0),
      turns.length,
    ),
    attempts_with_imagined_error: share(
      turns.reduce((a, t) => a + count(t.attemptErrors, (e) => e > 0), 0),
      attempts,
    ),
    imagined_errors_replayed: replays.length,
    imagined_errors_confirmed: share(
      count(replays, (r) => r === "confirmed"),
      replays.length,
    ),
    committed_same_as_none: share(
      count(turns, (t) => t.committed === t.none),
      turns.length,
    ),
    committed_matches_an_attempt: share(
      count(turns, (t) => t.attempts.includes(t.committed)),
      turns.length,
    ),
    committed_matches_majority: share(
      count(turns, (t) => t.committed === majority(t.attempts)),
      turns.length,
    ),
  };
}

/** Runs the three measurements on every task (a fresh real environment per run) and reports them. */
export async function measureHeadroom(tasks: readonly Task[], o: HeadroomOptions): Promise<HeadroomReport> {
  const measured = await mapConcurrent(tasks, Math.max(1, o.concurrency), async (task) => {
    const seeded = <T>(run: () => Promise<T>) =>
      o.seed === undefined ? run() : testTimeSeeds(o.seed, task, run);
    const none = await runEpisodeWithRehearsal(task, { ...o.episode, rehearsal: { mode: "none" } });
    const rehearsal = typeof o.rehearsal === "function" ? o.rehearsal(task) : o.rehearsal;
    const rehearsed = await seeded(() => runEpisodeWithRehearsal(task, { ...o.episode, rehearsal }));
    const samples: boolean[] = [];
    for (let i = 0; i < o.samples; i++) {
      const plain = await runEpisodeWithRehearsal(task, {
        ...o.episode,
        temperature: o.sampleTemperature,
        sample: i,
        rehearsal: { mode: "none" },
      });
      samples.push(plain.success);
    }
    const turns: HeadroomTaskRow["turns"] = [];
    for (const r of rehearsed.rehearsals) {
      const errorReplays: ErrorReplay[] = [];
      // only a rehearsal before the turn's first real call starts from a known real state
      if (r.step === 0) {
        const before = rehearsed.calls.filter((c) => c.turn < r.turn);
        for (const a of r.rehearsal.attempts) {
          const replay = await replayImaginedError(task, o.episode.envFactory, before, a);
          if (replay) errorReplays.push(replay);
        }
      }
      turns.push({
        attempts: r.rehearsal.attempts.map(attemptSignature),
        attemptErrors: r.rehearsal.attempts.map((a) => a.calls.filter(isErrorResult).length),
        errorReplays,
        committed: turnSignature(rehearsed, r.turn),
        none: turnSignature(none, r.turn),
      });
    }
    const row: HeadroomTaskRow = {
      taskId: task.id,
      none: none.success,
      rehearsed: rehearsed.success,
      samples,
      turns,
    };
    return { row, none, rehearsed };
  });
  return {
    ...headroomReport(measured.map((m) => m.row)),
    failures: {
      none: countFailures(
        tasks,
        measured.map((m) => m.none),
      ),
      rehearsed: countFailures(
        tasks,
        measured.map((m) => m.rehearsed),
      ),
    },
  };
}
