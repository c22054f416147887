import type { Message, ToolCall } from "./messages.js";
import type { ToolSchema } from "./tools.js";

/**
 * What rollouts, judges and user simulators need from a chat model. `src/engines/` implements it
 * over any OpenAI-compatible endpoint (our worker, vLLM, hosted APIs); `src/testing/` ships a
 * scripted one. Token ids and logprobs are present when the server returns them (our worker and
 * vLLM do with `return_token_ids`), and are what the trainer needs.
 */
export interface ChatRequest {
  messages: Message[];
  tools?: ToolSchema[];
  temperature?: number;
  topP?: number;
  maxTokens?: number;
  n?: number;
  seed?: number;
  stop?: string[];
  /** JSON schema for structured output (judges); servers that cannot honour it ignore it. */
  responseSchema?: { name: string; schema: Record<string, unknown> };
}

export interface Sample {
  /** The raw assistant text (for our worker: including any `<tool_call>` blocks). */
  text: string;
  /** Tool calls the server already parsed into OpenAI `tool_calls`, if it did. */
  toolCalls?: ToolCall[];
  tokenIds?: number[];
  /** Log-probabilities of `tokenIds` under the sampling distribution. */
  logprobs?: number[];
  finishReason: string;
}

export interface ChatResult {
  /** The model that answered, as the server names it (a versioned `<run>@<step>` with vLLM rollouts). */
  model?: string;
  promptTokenIds?: number[];
  samples: Sample[];
  usage?: { promptTokens: number; completionTokens: number };
}

export interface ChatModel {
  readonly name: string;
  chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult>;
}
