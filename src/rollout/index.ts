export type { Row, ResponderMode, EndReason, ToolCallRecord, EpisodeResult } from "./types.js";
export { loadTasks, parseTasks } from "./load-tasks.js";
export { runEpisode, playTurn } from "./episode.js";
export type { EpisodeOptions, TurnOutcome } from "./episode.js";
export { runEpisodes, groupJobs } from "./scheduler.js";
export type { EpisodeJob, EpisodeProgress, RunEpisodesOptions } from "./scheduler.js";
export { boundedChatModel } from "./bounded-model.js";
export type { BoundedChatModel } from "./bounded-model.js";
export type { Responder, EpisodeResponder, CallContext, ResponderAnswer } from "./responder.js";
export { realResponder, realErrorContent } from "./real-responder.js";
export type { EnvFactory } from "./real-responder.js";
export { simulatorResponder, rehearsalResponder } from "./model-responder.js";
export type { ModelResponderOptions } from "./model-responder.js";
export {
  buildRehearsalPrompt,
  serializeHistory,
  isRehearsalRequest,
  REHEARSAL_SYSTEM_FULL,
  REHEARSAL_SYSTEM_COMPACT,
} from "./rehearsal-prompt.js";
export type { RehearsalPromptInput, RehearsalPromptVariant } from "./rehearsal-prompt.js";
export { parseExecutionResult, formatToolError } from "./execution-result.js";
export type { ExecutionResultParse } from "./execution-result.js";
export { readActOutput } from "./act-output.js";
export { lookupExample } from "./example-cache.js";
export { toRow, promptTokenCount } from "./rows.js";
