export {
  toolworldBenchRunner,
  toolworldEvalTasks,
  TOOLWORLD_EVAL_SEED,
  TOOLWORLD_DEFAULT_TASKS,
} from "./bench-runner.js";
export type { ToolworldTrialResult, ToolworldSummary, ToolworldBenchRunner } from "./bench-runner.js";
export { goldChatModel, noopChatModel } from "./oracle-models.js";
export { policySource } from "./policy-source.js";
export type { PolicySource, PolicyFlags } from "./policy-source.js";
