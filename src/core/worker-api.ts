import { z } from "zod";

/**
 * The worker's training API on the wire (ARCHITECTURE.md, "Worker API"): snake_case JSON, written
 * once as zod schemas; the TypeScript types are inferred from them. `src/engines/worker-client.ts`
 * maps camelCase library calls onto these shapes. Chat completions use the OpenAI shape and are not
 * repeated here.
 */

export const HealthResponseSchema = z.looseObject({
  status: z.string(),
  model: z.string(),
  step: z.number().int(),
  world_size: z.number().int(),
  /** How the ranks split training: "none" (one process), "ddp" or "fsdp". */
  parallel: z.enum(["none", "ddp", "fsdp"]).optional(),
  /** True when only LoRA adapters train. */
  lora: z.boolean().optional(),
  /** Padded tokens per training micro-batch (`--micro-batch-tokens`). */
  micro_batch_tokens: z.number().int().optional(),
  /** Sampling/training counters (e.g. `max_batch_requests` > 1 shows dynamic batching at work). */
  metrics: z.record(z.string(), z.number()).optional(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

/** A message as the worker's tokenizer sees it (OpenAI message shape). */
export const WireMessageSchema = z.looseObject({
  role: z.enum(["system", "user", "assistant", "tool"]),
  content: z.string().nullable(),
});

export const TokenizeRequestSchema = z.object({
  messages: z.array(WireMessageSchema),
  tools: z.array(z.unknown()).optional(),
  add_generation_prompt: z.boolean().optional(),
});
export type TokenizeRequest = z.infer<typeof TokenizeRequestSchema>;

export const TokenSpanSchema = z.object({
  /** Index of the message in the request. */
  message: z.number().int(),
  role: z.string().optional(),
  /** Token range [start, end) of that message in `token_ids`. */
  start: z.number().int(),
  end: z.number().int(),
  /** Assistant messages: where a sampled completion would begin (after the role header). */
  completion_start: z.number().int().optional(),
});
export type TokenSpan = z.infer<typeof TokenSpanSchema>;

export const TokenizeResponseSchema = z.object({
  token_ids: z.array(z.number().int()),
  spans: z.array(TokenSpanSchema),
});
export type TokenizeResponse = z.infer<typeof TokenizeResponseSchema>;

export const LossFnSchema = z.enum(["cross_entropy", "importance_sampling", "ppo"]);
export type LossFn = z.infer<typeof LossFnSchema>;

export const TrainSequenceSchema = z.object({
  token_ids: z.array(z.number().int()),
  loss_mask: z.array(z.number()),
  /** Required except for cross_entropy. */
  advantages: z.array(z.number()).optional(),
  /** Required by importance_sampling and ppo; entries at unmasked positions are ignored. */
  sampling_logprobs: z.array(z.number().nullable()).optional(),
  /** Weight of each target token in the step's loss (on every sequence of a call or none). */
  weight: z.number().optional(),
});
export type TrainSequence = z.infer<typeof TrainSequenceSchema>;

export const LossConfigSchema = z.object({
  fn: LossFnSchema,
  clip_low: z.number().optional(),
  clip_high: z.number().optional(),
  kl_coef: z.number().optional(),
  /** Truncated importance sampling cap (sampler ≠ trainer): weight min(π_trainer/π_sampler, cap). */
  tis_cap: z.number().optional(),
  temperature: z.number().optional(),
});
export type LossConfig = z.infer<typeof LossConfigSchema>;

export const ForwardBackwardRequestSchema = z.object({
  sequences: z.array(TrainSequenceSchema),
  loss: LossConfigSchema,
});
export type ForwardBackwardRequest = z.infer<typeof ForwardBackwardRequestSchema>;

export const ForwardBackwardResponseSchema = z.looseObject({
  /** null with `nonfinite: true` when the loss was not finite: the next optim_step skips. */
  loss: z.number().nullable(),
  nonfinite: z.boolean().optional(),
  metrics: z.record(z.string(), z.number().nullable()).default({}),
  /** Per request sequence (policy-gradient losses): its PPO ratio over its target tokens. */
  sequence_metrics: z
    .array(
      z.looseObject({
        tokens: z.number(),
        ratio_mean: z.number().nullable(),
        ratio_min: z.number().nullable(),
        ratio_max: z.number().nullable(),
        clipped: z.number(),
      }),
    )
    .optional(),
});
export type ForwardBackwardResponse = z.infer<typeof ForwardBackwardResponseSchema>;

export const OptimStepRequestSchema = z.object({
  lr: z.number(),
  weight_decay: z.number().optional(),
  max_grad_norm: z.number().optional(),
});
export type OptimStepRequest = z.infer<typeof OptimStepRequestSchema>;

export const OptimStepResponseSchema = z.looseObject({
  step: z.number().int(),
  // null when the gradient was non-finite and the step was skipped
  grad_norm: z.number().nullable(),
  skipped: z.boolean().optional(),
  reason: z.string().optional(),
});
export type OptimStepResponse = z.infer<typeof OptimStepResponseSchema>;

export const CheckpointRequestSchema = z.object({
  path: z.string(),
  optimizer: z.boolean().optional(),
});
export type CheckpointRequest = z.infer<typeof CheckpointRequestSchema>;

export const CheckpointResponseSchema = z.looseObject({
  path: z.string(),
  step: z.number().int(),
  optimizer: z.boolean(),
});
export type CheckpointResponse = z.infer<typeof CheckpointResponseSchema>;

export const StepResponseSchema = z.looseObject({ step: z.number().int() });

/** `POST /v1/train/publish` (worker/envace_worker/publish.py): weights for an inference engine. */
export const PublishRequestSchema = z.object({
  name: z.string(),
  dir: z.string().optional(),
  keep: z.number().int().optional(),
});
export type PublishRequest = z.infer<typeof PublishRequestSchema>;

export const PublishResponseSchema = z.looseObject({
  /** `<name>@<step>`: the model name rollouts request once an engine has loaded it. */
  version: z.string(),
  /** Absolute path on the worker's machine (what the engine loads). */
  path: z.string(),
  step: z.number().int(),
  format: z.enum(["lora", "full"]),
  pruned: z.array(z.string()),
});
export type PublishResponse = z.infer<typeof PublishResponseSchema>;

/** Error bodies: FastAPI's `{detail}` or OpenAI's `{error: {message}}`. */
export const WorkerErrorBodySchema = z.union([
  z.object({ error: z.object({ message: z.string() }).loose() }).loose(),
  z.object({ detail: z.unknown() }).loose(),
]);
