import type { Message, PolicyRole } from "../core/messages.js";
import type { ChatResult, Sample } from "../core/model.js";
import type { Row } from "./types.js";

/** One policy model call as a training row. Missing ids/logprobs (servers without them) are empty. */
export function toRow(role: PolicyRole, turn: number, result: ChatResult, sample: Sample): Row {
  return {
    role,
    promptTokenIds: result.promptTokenIds ?? [],
    tokenIds: sample.tokenIds ?? [],
    logprobs: sample.logprobs ?? [],
    turn,
    ...(result.model ? { policyVersion: result.model } : {}),
  };
}

/**
 * The prompt's size in tokens, for the context budget: the server's prompt ids, else its usage
 * count, else an estimate of 4 characters a token (servers that report neither).
 */
export function promptTokenCount(result: ChatResult, messages: readonly Message[]): number {
  if (result.promptTokenIds && result.promptTokenIds.length > 0) return result.promptTokenIds.length;
  if (result.usage) return result.usage.promptTokens;
  return Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
}
