export {
  astChecker,
  simpleFunctionChecker,
  standardizeString,
  isFunctionCallingFormat,
} from "./ast-checker.js";
export type { AstCall, AstCheckOptions, CheckResult } from "./ast-checker.js";
export { bfclBenchRunner, formatBfclSummary } from "./bench-runner.js";
export {
  ALL_SCORING,
  COLLECTIONS,
  categoryOfId,
  isBfclCategory,
  languageOf,
  type BfclCategory,
  type Language,
} from "./categories.js";
export { evaluateAst, evaluateRelevance, isDecodeFailure } from "./evaluate-single-turn.js";
export type { Candidate, DecodeFailure, EntryVerdict } from "./evaluate-single-turn.js";
export { goldCalls } from "./gold.js";
export { loadCategory, readJsonLines, funcDocs, FUNC_DOC_FILES } from "./load.js";
export type { BfclEntry, BfclAnswer, LoadedCategory } from "./load.js";
export {
  BfclModel,
  inferSingleTurn,
  inferMultiTurn,
  decodeAstPrompting,
  decodeJavaJsPrompting,
  toExecutionList,
  MAXIMUM_STEP_LIMIT,
} from "./model-handler.js";
export type { BfclMode, BfclModelOptions } from "./model-handler.js";
export { multiTurnChecker, isEmptyExecuteResponse } from "./multi-turn-checker.js";
export type { MultiTurnVerdict } from "./multi-turn-checker.js";
export { defaultSystemPrompt, toOpenAITools, withLanguageHints } from "./prompts.js";
export { readBfclReplay } from "./replay-file.js";
export type { ReplayLine } from "./replay-file.js";
export { runBfcl, resolveCategories } from "./run-bfcl.js";
export type { BfclPolicy, BfclRun, BfclRunOptions, BfclResult } from "./run-bfcl.js";
export { summarize, OVERALL_WEIGHTS } from "./score.js";
export type { BfclSummary, CategoryScore, GroupScore } from "./score.js";
export { decodeJavaCall } from "./java-call-decoder.js";
export { decodeJsCall } from "./js-call-decoder.js";
export { openAIEmbedder, serpApiWebSearch } from "./http-services.js";
export type { SerpApiOptions } from "./http-services.js";
