export { scoreRules, checkRule } from "./rules.js";
export { scoreEpisode, scoreTurn } from "./score.js";
export { episodeReward, weightedScore, maxUserTurns } from "./aggregate.js";
export { llmJudge, parseVerdict } from "./llm-judge.js";
export type { LlmJudgeOptions } from "./llm-judge.js";
export { buildJudgePrompt, VERDICT_SCHEMA } from "./judge-prompt.js";
export { deepEqual, argsInclude } from "./deep-equal.js";
export type { TurnTranscript, StandardVerdict, Judge, JudgeInput, TurnScore, EpisodeScore } from "./types.js";
