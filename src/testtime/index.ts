export type {
  RehearsalMode,
  RehearsalMemoryKind,
  RehearsalScope,
  RehearsalOptions,
  RehearsalAttempt,
  RehearsalTurn,
  AttemptEnd,
  RehearsalStats,
} from "./types.js";
export { emptyRehearsalStats, addRehearsalStats } from "./types.js";
export { parseRehearsalSpec, parseMemoryKind, parseRehearsalScope } from "./rehearsal-spec.js";
export { rehearse } from "./rehearse.js";
export type { RehearseInput, Rehearsal } from "./rehearse.js";
export { imagineAttempt } from "./imagine.js";
export type { ImagineInput } from "./imagine.js";
export { digestAttempt, digestAttempts } from "./digest.js";
export { summarizeAttempts, summaryPrompt, SUMMARY_SYSTEM } from "./summary.js";
export { withMemory, memoryNote, revisionNote, MEMORY_HEADER, IMAGINED_NOTICE } from "./memory-view.js";
export { meteredModel } from "./metered-model.js";
export type { MeteredModel, MeterLimits } from "./metered-model.js";
export { RehearsalPhase, GuardedEnvironment } from "./phase-guard.js";
export { rehearsingActorView } from "./actor-view.js";
export type { RehearsalRecord, RehearsingViewInput } from "./actor-view.js";
export { consensusPlan, refusedCalls } from "./consensus.js";
export { commitGuard, committedActor, guardedActor } from "./commit-guard.js";
export type { CommitGuard, GuardedActorOptions } from "./commit-guard.js";
export { rehearseThenCommit } from "./rehearse-then-commit.js";
export type { RehearseThenCommitInput, CommittedTurn } from "./rehearse-then-commit.js";
export { runEpisodeWithRehearsal } from "./episode.js";
export type { RehearsalEpisodeOptions, RehearsalEpisodeResult } from "./episode.js";
export { liveTask } from "./live-task.js";
export { rehearsalFromFlags, guardsWrites } from "./eval-flags.js";
export type { RehearsalEvalFlags } from "./eval-flags.js";
export { openEvalModel } from "./eval-model.js";
export type { EvalModelFlags } from "./eval-model.js";
