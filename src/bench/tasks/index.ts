export { tasksBenchRunner, taskEnvMode } from "./bench-runner.js";
export type { TaskBenchSummary, TaskEnvMode, TaskTrialResult } from "./bench-runner.js";
export { goldTaskModel, noopTaskModel, replayModels } from "./oracles.js";
