import { EnvaceError } from "../core/errors.js";
import type { ChatModel, ChatRequest, ChatResult } from "../core/model.js";
import { isRehearsalRequest } from "../rollout/rehearsal-prompt.js";
import { promptTokenCount } from "../rollout/rows.js";
import type { RehearsalStats } from "./types.js";

export interface MeterLimits {
  /** Tokens this model may still generate (one attempt's allowance); undefined: no limit. */
  maxCompletionTokens?: number;
  /** Total tokens all rehearsal may reach (checked against `stats.tokens.total`). */
  tokenBudget?: number;
  /** Default `maxTokens` of a call that sets none. */
  defaultMaxTokens: number;
}

export interface MeteredModel extends ChatModel {
  /** True once a call was refused for lack of budget. */
  readonly exhausted: boolean;
}

/** Completion tokens of a result: the server's ids, else its usage, else ~4 characters a token. */
function completionTokens(result: ChatResult): number {
  const s = result.samples[0];
  if (s?.tokenIds && s.tokenIds.length > 0) return s.tokenIds.length;
  if (result.usage) return result.usage.completionTokens;
  return Math.ceil((s?.text.length ?? 0) / 4);
}

/**
 * Counts one model call made for rehearsal's sake into `stats` (its kind and its prompt and
 * completion tokens); returns the completion tokens.
 */
export function countRehearsalCall(
  stats: RehearsalStats,
  request: ChatRequest,
  result: ChatResult,
  kind: keyof RehearsalStats["calls"],
): number {
  const completion = completionTokens(result);
  const prompt = promptTokenCount(result, request.messages);
  stats.tokens.prompt += prompt;
  stats.tokens.completion += completion;
  stats.tokens.total += prompt + completion;
  stats.calls[kind]++;
  return completion;
}

/**
 * The policy as rehearsal sees it: every call is counted into `stats` (act, rehearse or summary
 * calls and their tokens), a call is refused with REHEARSAL_BUDGET_EXHAUSTED once the attempt's
 * or the whole budget is spent, and `maxTokens` is clamped to what the attempt has left.
 */
export function meteredModel(
  policy: ChatModel,
  stats: RehearsalStats,
  limits: MeterLimits,
  kind?: "summary",
): MeteredModel {
  let generated = 0;
  let exhausted = false;
  return {
    name: policy.name,
    get exhausted() {
      return exhausted;
    },
    async chat(request: ChatRequest, options?: { signal?: AbortSignal }): Promise<ChatResult> {
      const left =
        limits.maxCompletionTokens === undefined ? Infinity : limits.maxCompletionTokens - generated;
      if (left <= 0 || (limits.tokenBudget !== undefined && stats.tokens.total >= limits.tokenBudget)) {
        exhausted = true;
        throw new EnvaceError("REHEARSAL_BUDGET_EXHAUSTED", "rehearsal token budget spent");
      }
      const maxTokens = Math.min(request.maxTokens ?? limits.defaultMaxTokens, left);
      const result = await policy.chat({ ...request, maxTokens }, options);
      generated += countRehearsalCall(
        stats,
        request,
        result,
        kind ?? (isRehearsalRequest(request.messages) ? "rehearse" : "act"),
      );
      return result;
    },
  };
}
