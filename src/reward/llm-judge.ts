import { EnvaceError } from "../core/errors.js";
import type { ChatModel } from "../core/model.js";
import { backoffDelay, sleep } from "./backoff.js";
import { buildJudgePrompt, VERDICT_SCHEMA } from "./judge-prompt.js";
import { parseVerdict } from "./parse-verdict.js";
import type { Judge, JudgeInput, StandardVerdict } from "./types.js";

export interface LlmJudgeOptions {
  /** Extra attempts after the first when the API call fails (default 3). */
  retries?: number;
  /** First backoff delay (default 500 ms), doubled per retry with jitter, capped by maxDelayMs (default 8000). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  temperature?: number;
  maxTokens?: number;
  /** Called before each retry (logs, tests). */
  onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
}

export { parseVerdict } from "./parse-verdict.js";

/**
 * A judge over any ChatModel (an OpenAI-compatible endpoint), one request per standard with a
 * JSON-schema response format. API failures are retried with exponential backoff; when they
 * persist the judge throws JUDGE_ERROR so that the episode is masked. A reply that is not valid
 * JSON is not an API failure: that standard fails and the parse error is counted.
 */
export function llmJudge(model: ChatModel, opts: LlmJudgeOptions = {}): Judge {
  const retries = opts.retries ?? 3;
  const baseDelayMs = opts.baseDelayMs ?? 500;
  const maxDelayMs = opts.maxDelayMs ?? 8000;

  async function ask(input: JudgeInput, k: number): Promise<StandardVerdict> {
    const request = {
      messages: buildJudgePrompt(input.standards[k]!, input.transcript),
      temperature: opts.temperature ?? 0,
      maxTokens: opts.maxTokens ?? 1024,
      responseSchema: { name: VERDICT_SCHEMA.name, schema: VERDICT_SCHEMA.schema as Record<string, unknown> },
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await model.chat(request);
        return parseVerdict(res.samples[0]?.text ?? "");
      } catch (error) {
        if (attempt >= retries) {
          throw new EnvaceError(
            "JUDGE_ERROR",
            `judge ${model.name} failed after ${attempt + 1} attempts: ${(error as Error).message}`,
            {
              cause: error,
            },
          );
        }
        const delayMs = backoffDelay(attempt, baseDelayMs, maxDelayMs);
        opts.onRetry?.({ attempt: attempt + 1, delayMs, error });
        await sleep(delayMs);
      }
    }
  }

  return { judge: (input) => Promise.all(input.standards.map((_, k) => ask(input, k))) };
}
