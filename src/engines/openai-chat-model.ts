import OpenAI from "openai";
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from "openai/resources/chat/completions";
import type { ChatModel, ChatRequest, ChatResult, Sample } from "../core/model.js";
import { fromOpenAIToolCalls, toOpenAIMessages, toOpenAITools } from "./openai-messages.js";
import { toEndpointError } from "./endpoint-error.js";
import { scopedSeed } from "../core/sampling-seeds.js";

export interface OpenAIChatModelOptions {
  /** Server root including `/v1`, e.g. `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  model: string;
  /** Local servers ignore it; the `openai` client insists on one. */
  apiKey?: string;
  /** Per-request timeout (default 10 minutes, the `openai` client's). */
  timeoutMs?: number;
  /** Retries done by the `openai` client itself (default 2). Set 0 under an `EndpointPool`. */
  maxRetries?: number;
  /** Ask for `prompt_token_ids`, per-choice `token_ids` and logprobs (our worker, vLLM). */
  returnTokenIds?: boolean;
  /** Extra fields merged into every request body (server-specific knobs). */
  extraBody?: Record<string, unknown>;
}

/** Fields that vLLM-style servers (and our worker) add to the OpenAI response. */
interface TokenIdExtras {
  prompt_token_ids?: number[] | null;
  choices: Array<ChatCompletion.Choice & { token_ids?: number[] | null; prompt_token_ids?: number[] | null }>;
}

/** A `ChatModel` over any OpenAI-compatible `/v1/chat/completions` endpoint. */
export class OpenAIChatModel implements ChatModel {
  readonly name: string;
  readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly opts: OpenAIChatModelOptions;

  constructor(opts: OpenAIChatModelOptions) {
    this.opts = opts;
    this.baseURL = opts.baseURL;
    this.name = opts.model;
    this.client = new OpenAI({
      baseURL: opts.baseURL,
      apiKey: opts.apiKey ?? process.env.OPENAI_API_KEY ?? "envace-local",
      ...(opts.timeoutMs !== undefined ? { timeout: opts.timeoutMs } : {}),
      maxRetries: opts.maxRetries ?? 2,
    });
  }

  async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
    // Inside an episode's seed scope (training rollouts), an unseeded request gets its derived seed.
    const seed = request.seed ?? scopedSeed();
    const body = this.requestBody(seed === undefined ? request : { ...request, seed });
    let res: ChatCompletion;
    try {
      res = await this.client.chat.completions.create(
        body,
        options?.signal ? { signal: options.signal } : undefined,
      );
    } catch (err) {
      throw toEndpointError(err, this.baseURL);
    }
    return this.readResult(res as ChatCompletion & TokenIdExtras);
  }

  /** The request body as sent (exported for tests of the conversion). */
  requestBody(request: ChatRequest): ChatCompletionCreateParamsNonStreaming {
    const body: Record<string, unknown> = {
      model: this.opts.model,
      messages: toOpenAIMessages(request.messages),
    };
    if (request.tools && request.tools.length > 0) body.tools = toOpenAITools(request.tools);
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
    if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
    if (request.n !== undefined) body.n = request.n;
    if (request.seed !== undefined) body.seed = request.seed;
    if (request.stop && request.stop.length > 0) body.stop = request.stop;
    if (request.responseSchema) {
      body.response_format = {
        type: "json_schema",
        json_schema: { name: request.responseSchema.name, schema: request.responseSchema.schema },
      };
    }
    if (this.opts.returnTokenIds) {
      body.return_token_ids = true;
      body.logprobs = true;
    }
    Object.assign(body, this.opts.extraBody);
    return body as unknown as ChatCompletionCreateParamsNonStreaming;
  }

  private readResult(res: ChatCompletion & TokenIdExtras): ChatResult {
    const samples: Sample[] = [...res.choices]
      .sort((a, b) => a.index - b.index)
      .map((c) => {
        const sample: Sample = { text: c.message?.content ?? "", finishReason: c.finish_reason ?? "stop" };
        const toolCalls = fromOpenAIToolCalls(c.message?.tool_calls);
        if (toolCalls) sample.toolCalls = toolCalls;
        if (Array.isArray(c.token_ids)) sample.tokenIds = c.token_ids;
        const lp = c.logprobs?.content;
        if (Array.isArray(lp) && lp.length > 0) sample.logprobs = lp.map((t) => t.logprob);
        return sample;
      });
    const result: ChatResult = { samples };
    if (typeof res.model === "string" && res.model) result.model = res.model;
    const prompt = res.prompt_token_ids ?? res.choices[0]?.prompt_token_ids;
    if (Array.isArray(prompt)) result.promptTokenIds = prompt;
    if (res.usage) {
      result.usage = { promptTokens: res.usage.prompt_tokens, completionTokens: res.usage.completion_tokens };
    }
    return result;
  }
}
