/**
 * engines/: how envace reaches models. `OpenAIChatModel` talks to any OpenAI-compatible server
 * (our worker, vLLM, SGLang, hosted APIs) with token ids and logprobs when asked; `EndpointPool`
 * spreads calls over several with bounded concurrency, retries and failover; `WorkerClient` makes
 * the worker's typed training calls; `startWorker` runs and supervises the Python worker.
 */
export { OpenAIChatModel } from "./openai-chat-model.js";
export type { OpenAIChatModelOptions } from "./openai-chat-model.js";
export {
  toOpenAIMessages,
  toOpenAITools,
  fromOpenAIToolCalls,
  parseToolArguments,
} from "./openai-messages.js";
export { EndpointPool } from "./endpoint-pool.js";
export type { EndpointPoolOptions, EndpointPoolStats } from "./endpoint-pool.js";
export { isRetryableError, isRetryableStatus } from "./endpoint-error.js";
export type { EndpointErrorDetails } from "./endpoint-error.js";
export { Semaphore } from "./semaphore.js";
export { backoffDelay } from "./backoff.js";
export { WorkerClient } from "./worker-client.js";
export type {
  WorkerClientOptions,
  TokenizeInput,
  TokenizeOutput,
  TrainSequenceInput,
  LossInput,
  ForwardBackwardInput,
  ForwardBackwardOutput,
  OptimStepInput,
  OptimStepOutput,
} from "./worker-client.js";
export { startWorker } from "./worker-supervisor.js";
export type { StartWorkerOptions, WorkerProcess, WorkerRestartInfo } from "./worker-supervisor.js";
export { workerServeArgs } from "./worker-args.js";
export type { WorkerModelOptions } from "./worker-args.js";
export { ensureWorkerEnv, defaultWorkerPython, packageRoot } from "./worker-env.js";
export { VllmRolloutEngine } from "./vllm-engine.js";
export type {
  VllmRolloutEngineOptions,
  PublishedWeights,
  SyncReport,
  VllmEngineStats,
} from "./vllm-engine.js";
export { VllmAdmin } from "./vllm-admin.js";
export type { VllmEndpoint } from "./vllm-admin.js";
export { sessionKey } from "./vllm-session.js";
export { VllmPolicySync, runNameOf } from "./vllm-sync.js";
export type { WeightPublisher, StepSampler, SyncRecord } from "./vllm-sync.js";
export { VllmRolloutConfigZ } from "./vllm-config.js";
export type { VllmRolloutConfig } from "./vllm-config.js";
