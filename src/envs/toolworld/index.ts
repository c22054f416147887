export { TOOLWORLD_DOMAINS, TOOLWORLD_TRAIN_DOMAINS, TOOLWORLD_HELDOUT_DOMAINS } from "./registry.js";
export { generateTasks, splitOfSignature } from "./generate.js";
export type { GenerateOptions, ToolworldSplit } from "./generate.js";
export {
  ToolworldEnvironment,
  createToolworldEnv,
  toolworldResultValue,
  toolworldWriteTools,
} from "./environment.js";
export type { ToolworldWorld } from "./environment.js";
export type { WorldDrift } from "./state.js";
export { goldSolve } from "./gold-solver.js";
export type { GoldRun, GoldTurn, GoldCall } from "./gold-solver.js";
export { toolworldVocabulary, toolworldCorpus, toolworldEntities, entityMentions } from "./vocabulary.js";
export type { ToolworldState } from "./types.js";
export { pastAgentRun, PAST_AGENT_HABITS } from "./past-agent.js";
export type { PastAgentRun, PastAgentFlaw, PastAgentHabits } from "./past-agent.js";
export { worldSeed, tenantOf, tenantLine, MAX_WORLDS } from "./generate.js";
export { domainSpec } from "./registry.js";
export { writeToolNames } from "./tools.js";
export type { DomainSpec } from "./types.js";
export { OWNER_COUNT, ITEM_COUNT, DAYS, ids } from "./pools.js";
