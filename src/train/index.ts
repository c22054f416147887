export { POLICY_ROLES, groupAdvantages, roleWiseAdvantages } from "./advantages.js";
export type { AdvantageOptions, GroupStats, GroupResult, ScoredRow } from "./advantages.js";
export {
  rowToSequence,
  packByTokenBudget,
  weightByAggregation,
  targetTokens,
  type LossAggMode,
} from "./batching.js";
export type {
  TrainEngine,
  TrainSequence,
  LossOptions,
  ForwardBackwardResult,
  OptimStepResult,
  Tokenizer,
} from "./engine.js";
export {
  TrainConfigZ,
  LoopConfigZ,
  parseTrainConfig,
  parseLoopConfig,
  loadTrainConfig,
  resolveConfigPaths,
} from "./config.js";
export type { TrainConfig, LoopConfig, TaskSource } from "./config.js";
export { learningRate } from "./lr-schedule.js";
export { tasksForStep, samplingPosition } from "./task-sampler.js";
export { runTrainLoop } from "./loop.js";
export type { EpisodeSampler, Evaluator, TrainLoopDeps, TrainLoopOptions, TrainSummary } from "./loop.js";
export { rolloutSampler } from "./rollout-sampler.js";
export type { RolloutSamplerOptions } from "./rollout-sampler.js";
export { realEnvEvaluator } from "./evaluator.js";
export { rolloutMetrics } from "./step-metrics.js";
export type { StepMetrics, EvalMetrics, RoleStats, ByRole } from "./step-metrics.js";
export { checkpointDir, latestCheckpoint, modelDir, truncateJsonl, writeLoopState } from "./checkpoint.js";
export type { LoopState } from "./checkpoint.js";
export {
  actingExample,
  rehearsingExample,
  rehearsingExamplesFromEpisode,
  executionResultText,
  toSftSequence,
  runSft,
} from "./sft.js";
export type { SftExample, SftOptions } from "./sft.js";
export { loadTaskSource } from "./task-sources.js";
export { environmentForTask } from "./environments.js";
export { trainFromConfig } from "./run.js";
export type { TrainRunOptions } from "./run.js";
export { InMemoryTrainEngine } from "./in-memory-engine.js";
