import { withSamplingSeeds } from "../core/sampling-seeds.js";
import type { Task } from "../core/task.js";
import { runEpisode, type EpisodeOptions } from "../rollout/episode.js";
import { realResponder, type EnvFactory } from "../rollout/real-responder.js";
import type { EpisodeResult } from "../rollout/types.js";
import { rehearsingActorView, type RehearsalRecord } from "./actor-view.js";
import { committedActor } from "./commit-guard.js";
import { GuardedEnvironment, RehearsalPhase } from "./phase-guard.js";
import { emptyRehearsalStats, type RehearsalOptions, type RehearsalStats } from "./types.js";

export interface RehearsalEpisodeOptions extends Omit<EpisodeOptions, "responder" | "actorView"> {
  /** A fresh real environment per episode; only the committed run gets it (behind a guard). */
  envFactory: EnvFactory;
  rehearsal: RehearsalOptions;
}

export interface RehearsalEpisodeResult extends EpisodeResult {
  rehearsal: RehearsalStats;
  /** Every rehearsal, in order, with its attempts and memory. */
  rehearsals: RehearsalRecord[];
}

/**
 * A whole episode with test-time rehearsal: every user turn (or every real action, scope
 * `action`) is first rehearsed privately, then played once for real with the memory in the
 * actor's context; scored like `runEpisode`. `envCalls` counts the committed real calls;
 * `rehearsal.realCallsDuringRehearsal` the ones attempted while rehearsing (refused; must be 0).
 */
export async function runEpisodeWithRehearsal(
  task: Task,
  opts: RehearsalEpisodeOptions,
): Promise<RehearsalEpisodeResult> {
  const { envFactory, rehearsal, ...episode } = opts;
  const stats = emptyRehearsalStats(rehearsal);
  const phase = new RehearsalPhase();
  const rehearsals: RehearsalRecord[] = [];
  const guardedFactory: EnvFactory = async (t) => new GuardedEnvironment(await envFactory(t), phase);
  const commit = committedActor(opts.policy, rehearsal, stats);
  const actorView = rehearsingActorView({
    policy: opts.policy,
    task,
    options: rehearsal,
    stats,
    phase,
    onRehearsal: (r) => {
      rehearsals.push(r);
      commit.observe(r.rehearsal);
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  const result = await runEpisode(task, {
    ...episode,
    policy: commit.actor,
    responder: realResponder(guardedFactory),
    ...(rehearsal.mode !== "none" ? { actorView } : {}),
  });
  stats.realCallsDuringRehearsal = phase.realCalls;
  return { ...result, rehearsal: stats, rehearsals };
}

/**
 * Runs one test-time episode with its sampled requests seeded from (seed, task): each imagined
 * attempt draws the same tokens in every run (`withBranchSeeds`), up to float near-ties where
 * the worker decodes it beside other requests.
 */
export function testTimeSeeds<T>(seed: number, task: Task, run: () => Promise<T>): Promise<T> {
  return withSamplingSeeds({ seed, step: 0, task: `testtime:${task.id}`, sample: 0 }, run);
}
