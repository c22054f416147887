export type {
  RewardType,
  Tau2Action,
  Tau2EnvAssertion,
  Tau2EvaluationCriteria,
  Tau2TaskView,
  Tau2Message,
  Tau2Requestor,
  Termination,
  ComponentStatus,
  ComponentResult,
  Tau2Evaluation,
} from "./types.js";
export { DEFAULT_REWARD_BASIS, SCORED_TERMINATIONS } from "./types.js";
export type { Tau2EnvLike, Tau2DomainLike } from "./env-port.js";
export { evaluateEpisode } from "./evaluate.js";
export type { EvaluateInput, EvaluateOutput } from "./evaluate.js";
export { checkActions, actionMatches, trajectoryToolCalls } from "./evaluate-action.js";
export type { ActionCheck } from "./evaluate-action.js";
export { checkCommunicate } from "./evaluate-communicate.js";
export type { CommunicateCheck } from "./evaluate-communicate.js";
export { checkEnvironment } from "./evaluate-env.js";
export type { EnvCheckResult, DbCheck, EnvAssertionCheck } from "./evaluate-env.js";
export { judgeNLAssertions, judgePrompt } from "./evaluate-nl.js";
export type { NLAssertionCheck } from "./evaluate-nl.js";
export { pythonEqual } from "./python-equal.js";
export { replayMessages, replayActions } from "./replay.js";
export type { ReplayedCall } from "./replay.js";
export { AGENT_STOP } from "./agent.js";
export type { Tau2Agent, Tau2AgentSession, Tau2AgentContext, Tau2AgentReply } from "./agent.js";
export { LLMAgent, agentSystemPrompt, agentView } from "./llm-agent.js";
export type { LLMAgentOptions } from "./llm-agent.js";
export { goldAgent, goldPair, noopAgent, replayAgent, replayPair, readReplayFile } from "./oracle-agents.js";
export {
  LLMUserSimulator,
  scriptedUser,
  isUserStop,
  userView,
  userSystemPrompt,
  readUserGuidelines,
  USER_STOP_TOKENS,
} from "./user-simulator.js";
export type {
  Tau2UserSimulator,
  Tau2UserSession,
  Tau2UserContext,
  Tau2UserReply,
  LLMUserSimulatorOptions,
} from "./user-simulator.js";
export { scenarioText, scenarioOpening } from "./scenario-text.js";
export { initialHistory } from "./initial-history.js";
export {
  runEpisode,
  toolResultText,
  DEFAULT_MAX_STEPS,
  DEFAULT_MAX_ERRORS,
  FIRST_AGENT_MESSAGE,
} from "./run-episode.js";
export type { EpisodeOptions, EpisodeResult } from "./run-episode.js";
export { runTau2, selectTasks } from "./run-tau2.js";
export type { Tau2RunOptions, Tau2RunSummary, Tau2TrialResult } from "./run-tau2.js";
export { tau2BenchRunner, tau2AgentFromOptions, tau2UserFromOptions, TAU2_DOMAINS } from "./bench-runner.js";
export type { Tau2DomainLoader } from "./bench-runner.js";
// τ² with test-time rehearsal (benchmarks use src/testtime/; src/testtime/ knows no benchmark).
export { RehearsingTau2Agent, guardTau2 } from "./rehearsal-agent.js";
export type { RehearsingTau2AgentOptions, Tau2RehearsalSession } from "./rehearsal-agent.js";
export { withTau2Rehearsal, DUAL_CONTROL_USER_REPLIES } from "./rehearsal-bench.js";
export { imagineTau2Attempt, DEFAULT_USER_STEPS_PER_REPLY } from "./rehearsal-imagine.js";
export type { ImaginedUser, Tau2ImagineContext } from "./rehearsal-imagine.js";
