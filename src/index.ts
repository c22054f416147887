// Registers the toolworld demo domains (`generator: toolworld` task sources, their gold runs).
import "./envs/toolworld/register.js";
export { EnvaceError, isEnvaceError } from "./core/errors.js";
export type { ErrorCode } from "./core/errors.js";
export type { Message, Role, ToolCall, PolicyRole } from "./core/messages.js";
export type { ToolSchema, ToolResult, JSONSchema } from "./core/tools.js";
export type { Environment } from "./envs/env.js";
export {
  OpenAIChatModel,
  EndpointPool,
  WorkerClient,
  startWorker,
  ensureWorkerEnv,
  VllmRolloutEngine,
} from "./engines/index.js";
export type {
  OpenAIChatModelOptions,
  EndpointPoolOptions,
  EndpointPoolStats,
  StartWorkerOptions,
  WorkerProcess,
  TokenizeOutput,
  ForwardBackwardInput,
  OptimStepOutput,
  VllmRolloutEngineOptions,
  PublishedWeights,
  SyncReport,
} from "./engines/index.js";
export {
  connectMcpStdio,
  connectMcpHttp,
  McpEnvironment,
  recordingEnvironment,
  ExampleLog,
  jsonlFileSink,
} from "./envs/mcp/index.js";
export type {
  McpEnvironmentOptions,
  StdioServerOptions,
  HttpServerOptions,
  ExampleSink,
} from "./envs/mcp/index.js";
export { fetchBenchmarkData, BENCHMARKS } from "./bench/data/index.js";
export type { Benchmark, FetchReport } from "./bench/data/index.js";
export { resolveDataDir } from "./bench/data-dir.js";
export {
  TOOLWORLD_DOMAINS,
  TOOLWORLD_TRAIN_DOMAINS,
  TOOLWORLD_HELDOUT_DOMAINS,
  generateTasks,
  createToolworldEnv,
  ToolworldEnvironment,
  goldSolve,
  toolworldVocabulary,
  toolworldCorpus,
  toolworldResultValue,
} from "./envs/toolworld/index.js";
export type {
  GenerateOptions,
  ToolworldSplit,
  GoldRun,
  GoldTurn,
  GoldCall,
  ToolworldState,
} from "./envs/toolworld/index.js";
export {
  loadTasks,
  parseTasks,
  runEpisode,
  runEpisodes,
  groupJobs,
  boundedChatModel,
  realResponder,
  simulatorResponder,
  rehearsalResponder,
  buildRehearsalPrompt,
  parseExecutionResult,
  formatToolError,
} from "./rollout/index.js";
export type {
  Row,
  ResponderMode,
  EndReason,
  ToolCallRecord,
  EpisodeResult,
  EpisodeOptions,
  EpisodeJob,
  RunEpisodesOptions,
  Responder,
  EnvFactory,
  ModelResponderOptions,
  RehearsalPromptVariant,
} from "./rollout/index.js";
export { scoreEpisode, scoreTurn, scoreRules, llmJudge } from "./reward/index.js";
export type { Judge, TurnTranscript, EpisodeScore, LlmJudgeOptions } from "./reward/index.js";
export { registerTaskGenerator, taskGeneratorNames } from "./envs/task-generator-registry.js";
export type { TaskGenerator, TaskGeneratorSpec } from "./envs/task-generator-registry.js";
export { registerTaskKind, taskKindNames } from "./envs/task-kind-registry.js";
export type { TaskKind, GoldTrajectory } from "./envs/task-kind-registry.js";
// Your own task files (docs/tasks.md): real environments from `env`, checking, importing logs.
export { TaskZ, TaskEnvZ, StandardZ, RuleZ, ExampleZ, TraceZ } from "./core/task.js";
export type { Task, TaskEnv, Standard, Rule, Example, Trace, TraceMessage } from "./core/task.js";
export { environmentForTask, TASK_ENV_KINDS } from "./envs/task-environment.js";
export { openMcpTaskEnvironment, EPISODE_DIR } from "./envs/mcp/task-environment.js";
export {
  checkTask,
  importOpenAITranscripts,
  importMcpRecording,
  attachChecklists,
  taskJsonSchema,
  taskRecordings,
} from "./tasks/index.js";
export type { TaskCheck, TaskUses, ImportResult, ImportOptions, RecordedCall } from "./tasks/index.js";
export { tasksBenchRunner } from "./bench/tasks/index.js";
export type { TaskBenchSummary } from "./bench/tasks/index.js";
export { traceSftExamples, sftExamplesForTasks } from "./train/trace-sft.js";
export { preflightTrain } from "./train/preflight.js";
export { canonicalJson, defaultDataDir, loadTau2Domain, resultToString } from "./envs/tau2/index.js";
export type { Tau2Domain, Tau2DomainName, Tau2Environment, Tau2Task } from "./envs/tau2/index.js";
export {
  roleWiseAdvantages,
  groupAdvantages,
  parseTrainConfig,
  loadTrainConfig,
  runTrainLoop,
  rolloutSampler,
  realEnvEvaluator,
  trainFromConfig,
  runSft,
  toSftSequence,
  actingExample,
  rehearsingExample,
  rehearsingExamplesFromEpisode,
  learningRate,
} from "./train/index.js";
export type {
  TrainConfig,
  TrainEngine,
  TrainSequence,
  EpisodeSampler,
  Evaluator,
  TrainLoopDeps,
  TrainSummary,
  StepMetrics,
  SftExample,
} from "./train/index.js";
export {
  passHatK,
  passHatKs,
  isSuccessful,
  registerBench,
  getBench,
  listBenches,
  optionsFor,
  BENCH_ONLY_OPTIONS,
} from "./bench/index.js";
export type { BenchOnlyOption, BenchRunner, BenchSummary, EvalOptions } from "./bench/index.js";
export {
  evaluateEpisode as evaluateTau2Episode,
  runEpisode as runTau2Episode,
  runTau2,
  LLMAgent as Tau2LLMAgent,
  LLMUserSimulator as Tau2LLMUserSimulator,
  goldAgent as tau2GoldAgent,
  goldPair as tau2GoldPair,
  noopAgent as tau2NoopAgent,
  replayAgent as tau2ReplayAgent,
  replayPair as tau2ReplayPair,
  readReplayFile as readTau2ReplayFile,
  scriptedUser as tau2ScriptedUser,
  tau2BenchRunner,
} from "./bench/tau2/index.js";
export type {
  Tau2Agent,
  Tau2UserSimulator,
  Tau2Message,
  Tau2RunOptions,
  Tau2RunSummary,
  Tau2TrialResult,
  Tau2Evaluation,
  ComponentResult as Tau2ComponentResult,
} from "./bench/tau2/index.js";
export { VitaEnvironment, parsePy as parseVitaJson, wallClock as vitaWallClock } from "./envs/vita/index.js";
export type { VitaClock, VitaDomainName, VitaEnvOptions } from "./envs/vita/index.js";
export {
  evaluateRubrics as evaluateVitaRubrics,
  LLMVitaAgent,
  LLMVitaUser,
  readVitaTasks,
  runVita,
  runVitaEpisode,
  vitaBenchRunner,
} from "./bench/vita/index.js";
export type {
  VitaAgent,
  VitaUser,
  VitaRunSummary,
  VitaTask,
  VitaTrialResult,
  RubricEvaluation,
} from "./bench/vita/index.js";
export {
  finmcpBenchRunner,
  FinReplayEnvironment,
  finReport,
  inferSample as inferFinMcpSample,
  readFinSamples,
  scoreFinMcp,
  scoreSample as scoreFinMcpSample,
} from "./bench/finmcp/index.js";
export type { FinMcpSummary, FinMetrics, FinReport, FinSample } from "./bench/finmcp/index.js";
export {
  PAPER_SUITE,
  paperTable,
  paperTableMarkdown,
  runPaperSuite,
  suiteBenchRunner,
} from "./bench/suite/index.js";
export type { PaperTable, PartResult } from "./bench/suite/index.js";
export {
  rehearseThenCommit,
  runEpisodeWithRehearsal,
  rehearse,
  liveTask,
  emptyRehearsalStats,
  parseRehearsalSpec,
  digestAttempts,
  withMemory,
  RehearsalPhase,
  GuardedEnvironment,
  consensusPlan,
  commitGuard,
  committedActor,
  guardedActor,
} from "./testtime/index.js";
export type {
  RehearsalMode,
  RehearsalMemoryKind,
  RehearsalScope,
  RehearsalOptions,
  RehearsalStats,
  RehearsalAttempt,
  RehearseThenCommitInput,
  CommittedTurn,
  RehearsalEpisodeOptions,
  RehearsalEpisodeResult,
  CommitGuard,
} from "./testtime/index.js";
export { toolworldBenchRunner } from "./bench/toolworld/index.js";
export type { ToolworldSummary, ToolworldTrialResult } from "./bench/toolworld/index.js";
export {
  bfclBenchRunner,
  runBfcl,
  loadCategory as loadBfclCategory,
  astChecker as bfclAstChecker,
  multiTurnChecker as bfclMultiTurnChecker,
  summarize as bfclSummarize,
  openAIEmbedder as bfclOpenAIEmbedder,
  serpApiWebSearch as bfclSerpApiWebSearch,
} from "./bench/bfcl/index.js";
export type { BfclCategory, BfclEntry, BfclRun, BfclRunOptions, BfclPolicy } from "./bench/bfcl/index.js";
export {
  BackendSession as BfclBackendSession,
  parseCallList,
  parsePythonLiteral,
  PyRandom,
} from "./envs/bfcl/index.js";
export type {
  BackendServices as BfclBackendServices,
  Embedder as BfclEmbedder,
  WebSearchService as BfclWebSearchService,
} from "./envs/bfcl/index.js";
export { playTurn } from "./rollout/index.js";
export type { TurnOutcome } from "./rollout/index.js";
