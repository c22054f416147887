export {
  agentSystemPrompt,
  agentView,
  isAgentStop,
  isUserStop,
  LLMVitaAgent,
  LLMVitaUser,
  noopAgent,
  readReplayFile,
  replayAgent,
  scriptedUser,
  STOP,
  userSystemPrompt,
  userView,
} from "./agents.js";
export type { VitaAgent, VitaReply, VitaReplayRow, VitaUser } from "./agents.js";
export { vitaBenchRunner, vitaRolesFromOptions } from "./bench-runner.js";
export {
  applyUpdates,
  evaluateRubrics,
  formatWindow,
  initialRubricStates,
  parseJudgeReply,
  pyFormat,
  slidingWindows,
  windowPrompt,
  WINDOW_OVERLAP,
  WINDOW_SIZE,
} from "./rubric-judge.js";
export type { RubricEvaluation, RubricState, RubricVerdict } from "./rubric-judge.js";
export { DEFAULT_MAX_STEPS, GREETING, runVitaEpisode } from "./run-episode.js";
export type { VitaEpisode, VitaTermination } from "./run-episode.js";
export { RehearsingVitaAgent } from "./rehearsal-agent.js";
export type { VitaRehearsalSession } from "./rehearsal-agent.js";
export { runVita } from "./run-vita.js";
export type { VitaRunOptions, VitaRunSummary, VitaTrialResult } from "./run-vita.js";
export { readVitaTasks, RUNNABLE_VITA_DOMAINS, VITA_DOMAINS, vitaTaskFile } from "./tasks.js";
export type { VitaBenchDomain } from "./tasks.js";
export type {
  VitaEvaluationCriteria,
  VitaExpectedState,
  VitaMessage,
  VitaTask,
  VitaToolCall,
} from "./types.js";
