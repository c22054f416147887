export { TOOLWORLD_DOMAINS, TOOLWORLD_TRAIN_DOMAINS, TOOLWORLD_HELDOUT_DOMAINS } from "./registry.js";
export { generateTasks, splitOfSignature } from "./generate.js";
export type { GenerateOptions, ToolworldSplit } from "./generate.js";
export { ToolworldEnvironment, createToolworldEnv, toolworldResultValue } from "./environment.js";
export type { ToolworldWorld } from "./environment.js";
export { goldSolve } from "./gold-solver.js";
export type { GoldRun, GoldTurn, GoldCall } from "./gold-solver.js";
export { toolworldVocabulary, toolworldCorpus } from "./vocabulary.js";
export type { ToolworldState } from "./types.js";
