import type { ChatModel } from "../core/model.js";
import { EnvaceError } from "../core/errors.js";
import type { ResponderMode } from "./types.js";
import { parseExecutionResult } from "./execution-result.js";
import { buildRehearsalPrompt, type RehearsalPromptVariant } from "./rehearsal-prompt.js";
import type { CallContext, EpisodeResponder, Responder, ResponderAnswer } from "./responder.js";

export interface ModelResponderOptions {
  /** Prompt size: `full` (reference-like, default) or `compact` (tiny models). */
  variant?: RehearsalPromptVariant;
  /** `full` only: append Qwen3's `/think` switch to the user part (the reference's default). */
  think?: boolean;
  temperature?: number;
  /** Nucleus sampling of the rehearsal (logprobs stay the full distribution's). */
  topP?: number;
  maxTokens?: number;
}

async function answerWithModel(
  model: ChatModel,
  ctx: CallContext,
  opts: ModelResponderOptions,
  keepPolicyCall: boolean,
): Promise<ResponderAnswer> {
  const messages = buildRehearsalPrompt({
    task: ctx.task,
    history: ctx.history,
    rawActMessage: ctx.rawActMessage,
    call: ctx.call,
    variant: opts.variant ?? "full",
    ...(opts.think ? { think: true } : {}),
  });
  const request = {
    messages,
    ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
    ...(opts.topP !== undefined ? { topP: opts.topP } : {}),
    ...(opts.maxTokens !== undefined ? { maxTokens: opts.maxTokens } : {}),
  };
  const result = await model.chat(request, ctx.signal ? { signal: ctx.signal } : undefined);
  const sample = result.samples[0];
  if (!sample) throw new EnvaceError("ENDPOINT_ERROR", `${model.name} returned no choices`);
  const parsed = parseExecutionResult(sample.text);
  const policyCall = keepPolicyCall ? { policyCall: { result, sample } } : {};
  if (!parsed.ok) return { content: parsed.content, ok: false, parseError: parsed.code, ...policyCall };
  if (parsed.verdict) return { content: parsed.content, ok: false, verdict: parsed.verdict, ...policyCall };
  return { content: parsed.content, ok: true, ...policyCall };
}

function modelResponder(mode: ResponderMode, model: ChatModel, opts: ModelResponderOptions): Responder {
  const keep = mode === "rehearsal";
  return {
    mode,
    async open(): Promise<EpisodeResponder> {
      return {
        sequential: false,
        envCalls: 0,
        answer: (ctx) => answerWithModel(model, ctx, opts, keep),
        close: async () => {},
      };
    },
  };
}

/** A separate, frozen model plays the environment; its calls are not training rows. */
export function simulatorResponder(model: ChatModel, opts: ModelResponderOptions = {}): Responder {
  return modelResponder("simulator", model, opts);
}

/** The policy itself plays the environment (role `rehearse`); its calls are training rows. */
export function rehearsalResponder(policy: ChatModel, opts: ModelResponderOptions = {}): Responder {
  return modelResponder("rehearsal", policy, opts);
}
