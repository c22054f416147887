import { z } from "zod";

/**
 * The worker's training API on the wire (ARCHITECTURE.md, "Worker API"): snake_case JSON, written
 * once as zod schemas; the TypeScript types are inferred from them. `src/engines/worker-client.ts`
 * maps camelCase library calls onto these shapes. Chat completions use the OpenAI shape and are not
 * repeated here.
 */

export const HealthResponseSchema = z.object({
  status: z.string(),
  model: z.string(),
  step: z.number().int(),
  world_size: z.number().int(),
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
  /** Token range [start, end) of that message in `token_ids`. */
  start: z.number().int(),
  end: z.number().int(),
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
  advantages: z.array(z.number()),
  sampling_logprobs: z.array(z.number()).optional(),
});
export type TrainSequence = z.infer<typeof TrainSequenceSchema>;

export const LossConfigSchema = z.object({
  fn: LossFnSchema,
  clip_low: z.number().optional(),
  clip_high: z.number().optional(),
  kl_coef: z.number().optional(),
  temperature: z.number().optional(),
});
export type LossConfig = z.infer<typeof LossConfigSchema>;

export const ForwardBackwardRequestSchema = z.object({
  sequences: z.array(TrainSequenceSchema),
  loss: LossConfigSchema,
});
export type ForwardBackwardRequest = z.infer<typeof ForwardBackwardRequestSchema>;

export const ForwardBackwardResponseSchema = z.looseObject({
  loss: z.number(),
  metrics: z.record(z.string(), z.number()).default({}),
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
});
export type OptimStepResponse = z.infer<typeof OptimStepResponseSchema>;

export const CheckpointRequestSchema = z.object({
  path: z.string(),
  optimizer: z.boolean().optional(),
});
export type CheckpointRequest = z.infer<typeof CheckpointRequestSchema>;

/** Error bodies: FastAPI's `{detail}` or OpenAI's `{error: {message}}`. */
export const WorkerErrorBodySchema = z.union([
  z.object({ error: z.object({ message: z.string() }).loose() }).loose(),
  z.object({ detail: z.unknown() }).loose(),
]);
