import type { z } from "zod";
import { EnvaceError } from "../core/errors.js";
import type { Message } from "../core/messages.js";
import type { ToolSchema } from "../core/tools.js";
import {
  CheckpointResponseSchema,
  ForwardBackwardResponseSchema,
  StepResponseSchema,
  type CheckpointResponse,
  HealthResponseSchema,
  OptimStepResponseSchema,
  PublishResponseSchema,
  type PublishResponse,
  TokenizeResponseSchema,
  WorkerErrorBodySchema,
  type ForwardBackwardRequest,
  type HealthResponse,
  type LossFn,
} from "../core/worker-api.js";
import { OpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
import { toOpenAIMessages, toOpenAITools } from "./openai-messages.js";

export interface TokenizeInput {
  messages: Message[];
  tools?: ToolSchema[];
  addGenerationPrompt?: boolean;
}

export interface TokenizeOutput {
  tokenIds: number[];
  /**
   * Token range [start, end) of each message, for SFT loss masks; for assistant messages
   * `completionStart` is where a sampled completion would begin (SFT targets: [completionStart, end)).
   */
  spans: { message: number; start: number; end: number; role?: string; completionStart?: number }[];
}

export interface TrainSequenceInput {
  tokenIds: number[];
  /** 1 where the token is trained on, 0 elsewhere; same length as `tokenIds`. */
  lossMask: number[];
  /** Per-token advantage; same length as `tokenIds`. Required except for cross_entropy. */
  advantages?: number[];
  /** Per-token logprobs under the sampling policy (importance_sampling, ppo). */
  samplingLogprobs?: number[];
  /** Weight of each target token in the step's loss (the loss aggregation); on all sequences or none. */
  weight?: number;
}

export interface LossInput {
  fn: LossFn;
  clipLow?: number;
  clipHigh?: number;
  klCoef?: number;
  temperature?: number;
  tisCap?: number;
}

export interface ForwardBackwardInput {
  sequences: TrainSequenceInput[];
  loss: LossInput;
}

export interface OptimStepInput {
  lr: number;
  weightDecay?: number;
  maxGradNorm?: number;
}

export interface OptimStepOutput {
  step: number;
  /** Gradient norm before clipping; NaN when the worker could not compute one (skipped step). */
  gradNorm: number;
  /** True when a non-finite loss or gradient made the worker skip the update. */
  skipped?: boolean;
  reason?: string;
}

export interface ForwardBackwardOutput {
  /** Token-mean loss of this call; NaN when not finite. */
  loss: number;
  /** e.g. num_tokens, num_sequences, nll, accumulated_calls, ratio_mean, clip_fraction, kl. */
  metrics: Record<string, number>;
  /** Per input sequence: PPO ratio over its target tokens (policy-gradient losses). */
  sequenceMetrics?: SequenceRatio[];
  nonfinite?: boolean;
}

export interface SequenceRatio {
  tokens: number;
  ratioMean: number | null;
  ratioMin: number | null;
  ratioMax: number | null;
  clipped: number;
}

export interface WorkerClientOptions {
  /** Per-call timeout for training calls (default none: a big forward_backward may take minutes). */
  timeoutMs?: number;
  /**
   * The worker's bearer token (its `--api-key`); default `$ENVACE_WORKER_API_KEY`. A worker started
   * by `startWorker` gets a fresh one and its `client` carries it.
   */
  apiKey?: string;
}

/** The environment variable that carries a worker's token (read by the worker and by this client). */
export const WORKER_API_KEY_ENV = "ENVACE_WORKER_API_KEY";

/**
 * Typed calls to the worker's training endpoints (ARCHITECTURE.md, "Worker API"). Chat goes
 * through `chatModel()`, an OpenAI client on the worker's `/v1`. A 4xx/5xx becomes
 * `WORKER_ERROR` with the server's message; a worker that does not answer, `WORKER_UNAVAILABLE`.
 */
export class WorkerClient {
  /** Server root without `/v1`, e.g. `http://127.0.0.1:8000`. */
  readonly baseURL: string;
  private readonly timeoutMs: number | undefined;
  private readonly apiKey: string | undefined;

  constructor(baseURL: string, opts: WorkerClientOptions = {}) {
    this.baseURL = baseURL.replace(/\/+$/, "").replace(/\/v1$/, "");
    this.timeoutMs = opts.timeoutMs;
    this.apiKey = opts.apiKey ?? process.env[WORKER_API_KEY_ENV];
  }

  /** A chat model on this worker with token ids and logprobs on. */
  chatModel(opts: Partial<OpenAIChatModelOptions> = {}): OpenAIChatModel {
    return new OpenAIChatModel({
      model: "envace-worker",
      returnTokenIds: true,
      ...(this.apiKey !== undefined ? { apiKey: this.apiKey } : {}),
      ...opts,
      baseURL: `${this.baseURL}/v1`,
    });
  }

  async health(): Promise<HealthResponse> {
    return this.call("GET", "/health", undefined, HealthResponseSchema);
  }

  async tokenize(req: TokenizeInput): Promise<TokenizeOutput> {
    const body: Record<string, unknown> = { messages: toOpenAIMessages(req.messages) };
    if (req.tools && req.tools.length > 0) body.tools = toOpenAITools(req.tools);
    if (req.addGenerationPrompt !== undefined) body.add_generation_prompt = req.addGenerationPrompt;
    const res = await this.call("POST", "/v1/tokenize", body, TokenizeResponseSchema);
    return {
      tokenIds: res.token_ids,
      spans: res.spans.map((s) => ({
        message: s.message,
        start: s.start,
        end: s.end,
        ...(s.role !== undefined ? { role: s.role } : {}),
        ...(s.completion_start !== undefined ? { completionStart: s.completion_start } : {}),
      })),
    };
  }

  /**
   * Accumulates gradients of the loss over these sequences (token-mean over masked tokens). A
   * non-finite loss comes back as `loss: NaN, nonfinite: true`; the next optimStep then skips.
   */
  async forwardBackward(req: ForwardBackwardInput): Promise<ForwardBackwardOutput> {
    const body: ForwardBackwardRequest = {
      sequences: req.sequences.map((s) => ({
        token_ids: s.tokenIds,
        loss_mask: s.lossMask,
        ...(s.advantages ? { advantages: s.advantages } : {}),
        ...(s.samplingLogprobs ? { sampling_logprobs: s.samplingLogprobs } : {}),
        ...(s.weight !== undefined ? { weight: s.weight } : {}),
      })),
      loss: dropUndefined({
        fn: req.loss.fn,
        clip_low: req.loss.clipLow,
        clip_high: req.loss.clipHigh,
        kl_coef: req.loss.klCoef,
        tis_cap: req.loss.tisCap,
        temperature: req.loss.temperature,
      }) as ForwardBackwardRequest["loss"],
    };
    const res = await this.call("POST", "/v1/train/forward_backward", body, ForwardBackwardResponseSchema);
    const metrics: Record<string, number> = {};
    for (const [k, v] of Object.entries(res.metrics)) metrics[k] = v ?? Number.NaN;
    const out: ForwardBackwardOutput = { loss: res.loss ?? Number.NaN, metrics };
    if (res.sequence_metrics) {
      out.sequenceMetrics = res.sequence_metrics.map((m) => ({
        tokens: m.tokens,
        ratioMean: m.ratio_mean,
        ratioMin: m.ratio_min,
        ratioMax: m.ratio_max,
        clipped: m.clipped,
      }));
    }
    if (res.nonfinite) out.nonfinite = true;
    return out;
  }

  async optimStep(req: OptimStepInput): Promise<OptimStepOutput> {
    const body = dropUndefined({ lr: req.lr, weight_decay: req.weightDecay, max_grad_norm: req.maxGradNorm });
    const res = await this.call("POST", "/v1/train/optim_step", body, OptimStepResponseSchema);
    const out: OptimStepOutput = { step: res.step, gradNorm: res.grad_norm ?? Number.NaN };
    if (res.skipped !== undefined) out.skipped = res.skipped;
    if (res.reason !== undefined) out.reason = res.reason;
    return out;
  }

  /** Drops accumulated gradients without stepping. */
  async zeroGrad(): Promise<{ step: number }> {
    const res = await this.call("POST", "/v1/train/zero_grad", {}, StepResponseSchema);
    return { step: res.step };
  }

  /** Saves weights (or the LoRA adapter) and, by default, optimizer state and step for exact resume. */
  async save(path: string, opts: { optimizer?: boolean } = {}): Promise<CheckpointResponse> {
    return this.call(
      "POST",
      "/v1/train/save",
      { path, optimizer: opts.optimizer ?? true },
      CheckpointResponseSchema,
    );
  }

  /** Loads weights (or adapter) and, by default, optimizer state and step; 404 → WORKER_ERROR. */
  async load(path: string, opts: { optimizer?: boolean } = {}): Promise<CheckpointResponse> {
    return this.call(
      "POST",
      "/v1/train/load",
      { path, optimizer: opts.optimizer ?? true },
      CheckpointResponseSchema,
    );
  }

  /**
   * Publishes the current weights for an inference engine (a PEFT adapter under LoRA, else an HF
   * checkpoint) as `<name>@<step>` under `dir` (default `published`) of the checkpoint root,
   * keeping the newest `keep` versions (default 3).
   */
  async publish(name: string, opts: { dir?: string; keep?: number } = {}): Promise<PublishResponse> {
    return this.call(
      "POST",
      "/v1/train/publish",
      dropUndefined({ name, dir: opts.dir, keep: opts.keep }),
      PublishResponseSchema,
    );
  }

  private async call<S extends z.ZodType>(
    method: "GET" | "POST",
    path: string,
    body: unknown,
    schema: S | undefined,
  ): Promise<z.infer<S>> {
    const url = `${this.baseURL}${path}`;
    let res: Response;
    const headers: Record<string, string> = {};
    if (this.apiKey !== undefined) headers.authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    try {
      res = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(this.timeoutMs !== undefined ? { signal: AbortSignal.timeout(this.timeoutMs) } : {}),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new EnvaceError(
        "WORKER_UNAVAILABLE",
        `worker at ${this.baseURL} is not answering (${path}): ${why}`,
        { url, cause: why },
      );
    }
    const text = await res.text();
    if (!res.ok) {
      throw new EnvaceError("WORKER_ERROR", `worker ${path} → ${res.status}: ${errorMessage(text)}`, {
        url,
        status: res.status,
        body: text.slice(0, 2000),
      });
    }
    let json: unknown;
    try {
      json = text.length > 0 ? JSON.parse(text) : {};
    } catch {
      throw new EnvaceError("WORKER_ERROR", `worker ${path} answered non-JSON: ${text.slice(0, 200)}`, {
        url,
        status: res.status,
      });
    }
    if (!schema) return json as z.infer<S>;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new EnvaceError(
        "WORKER_ERROR",
        `worker ${path} answered an unexpected shape: ${parsed.error.message}`,
        { url, body: json },
      );
    }
    return parsed.data as z.infer<S>;
  }
}

/** The server's own words from `{error: {message}}` (OpenAI style) or `{detail}` (FastAPI). */
function errorMessage(text: string): string {
  try {
    const parsed = WorkerErrorBodySchema.safeParse(JSON.parse(text));
    if (parsed.success) {
      const b = parsed.data;
      if ("error" in b) return (b.error as { message: string }).message;
      const d = b.detail;
      return typeof d === "string" ? d : JSON.stringify(d);
    }
  } catch {
    // not JSON: show it raw
  }
  return text.slice(0, 500) || "(empty body)";
}

function dropUndefined(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
