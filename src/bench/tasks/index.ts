export { tasksBenchRunner, taskEnvMode } from "./bench-runner.js";
export type { TaskBenchSummary, TaskEnvMode, TaskTrialResult } from "./bench-runner.js";
export { goldTaskModel, noopTaskModel, replayModels } from "./oracles.js";
export { sampleLine, writeSamples } from "./samples-log.js";
export type { SampleLine } from "./samples-log.js";
