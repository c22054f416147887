import type { Message } from "../core/messages.js";
import type { ToolSchema } from "../core/tools.js";

/**
 * What the trainer needs from a training engine. `WorkerClient` (src/engines/) implements it over
 * the worker's HTTP API; tests use an in-memory fake that records every call. Arrays in a sequence
 * are per token of `tokenIds`; `lossMask[i] = 1` marks token i as a target.
 */
export interface TrainSequence {
  tokenIds: number[];
  lossMask: number[];
  advantages: number[];
  samplingLogprobs?: number[];
  /** Weight of each target token in the step's loss (set by the loss aggregation, batching.ts). */
  weight?: number;
}

export interface LossOptions {
  fn: "cross_entropy" | "importance_sampling" | "ppo";
  clipLow?: number;
  clipHigh?: number;
  klCoef?: number;
  temperature?: number;
  /** Truncated importance sampling: weight each token by min(π_trainer/π_sampler, tisCap). */
  tisCap?: number;
}

export interface ForwardBackwardResult {
  loss: number;
  metrics: Record<string, number>;
  /** Per input sequence, when the engine reports it: the PPO ratio over its target tokens. */
  sequenceMetrics?: Array<{
    tokens: number;
    ratioMean: number | null;
    ratioMin: number | null;
    ratioMax: number | null;
    clipped: number;
  }>;
}

export interface OptimStepResult {
  step: number;
  gradNorm: number | null;
  skipped?: boolean;
}

export interface TrainEngine {
  forwardBackward(req: { sequences: TrainSequence[]; loss: LossOptions }): Promise<ForwardBackwardResult>;
  optimStep(req: { lr: number; weightDecay?: number; maxGradNorm?: number }): Promise<OptimStepResult>;
  save(path: string, opts: { optimizer: boolean }): Promise<unknown>;
  load(path: string, opts: { optimizer: boolean }): Promise<unknown>;
}

/** The worker's `/v1/tokenize`: token ids plus each message's token span [start, end). */
export interface Tokenizer {
  tokenize(req: { messages: Message[]; tools?: ToolSchema[]; addGenerationPrompt?: boolean }): Promise<{
    tokenIds: number[];
    spans: Array<{ message: number; start: number; end: number; completionStart?: number }>;
  }>;
}
