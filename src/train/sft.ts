import { mapConcurrent } from "../core/map-concurrent.js";
import type { Message, ToolCall } from "../core/messages.js";
import type { Task } from "../core/task.js";
import type { ToolSchema } from "../core/tools.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import { buildRehearsalPrompt, type RehearsalPromptVariant } from "../rollout/rehearsal-prompt.js";
import type { EpisodeResult } from "../rollout/types.js";
import { packByTokenBudget } from "./batching.js";
import type { TrainEngine, TrainSequence, Tokenizer } from "./engine.js";
import { learningRate } from "./lr-schedule.js";

/**
 * Supervised fine-tuning for both roles, before RL:
 * - acting: gold trajectories, every assistant message a target;
 * - rehearsing: recorded real tool responses, the target being the rehearse role's answer
 *   `<execution_result>\n{real result}\n</execution_result>` to the same rehearsal prompt the
 *   rollout builds.
 * Loss masks come from the worker's `/v1/tokenize` spans (train/ never tokenizes itself).
 */
export interface SftExample {
  messages: Message[];
  tools?: ToolSchema[];
  /** Indices of the messages that are targets (assistant messages). */
  targets: number[];
}

/** A gold trajectory: every assistant message is a target. */
export function actingExample(messages: Message[], tools?: ToolSchema[]): SftExample {
  const targets = messages.flatMap((m, i) => (m.role === "assistant" ? [i] : []));
  return { messages, ...(tools ? { tools } : {}), targets };
}

/** The rehearse role's target for a real result (kept verbatim when it is a JSON object/array). */
export function executionResultText(result: unknown): string {
  let value = result;
  if (typeof result === "string") {
    try {
      value = JSON.parse(result);
    } catch {
      value = { result };
    }
  }
  if (value === null || typeof value !== "object") value = { result: value };
  return `<execution_result>\n${JSON.stringify(value)}\n</execution_result>`;
}

/** One rehearsing example: the rehearsal prompt for a call, answered with its real result. */
export function rehearsingExample(input: {
  task: Task;
  history: readonly Message[];
  rawActMessage: string;
  call: ToolCall;
  result: unknown;
  variant?: RehearsalPromptVariant;
}): SftExample {
  const prompt = buildRehearsalPrompt({ ...input, variant: input.variant ?? "full" });
  return {
    messages: [...prompt, { role: "assistant", content: executionResultText(input.result) }],
    targets: [prompt.length],
  };
}

/**
 * Rehearsing examples from an episode run against a real environment: one per call answered by the
 * environment, with the history and act message the call was made in.
 */
export function rehearsingExamplesFromEpisode(
  task: Task,
  ep: EpisodeResult,
  variant?: RehearsalPromptVariant,
): SftExample[] {
  const out: SftExample[] = [];
  for (const rec of ep.calls) {
    if (rec.source !== "real") continue;
    const at = ep.messages.findIndex(
      (m) => m.role === "assistant" && (m.toolCalls ?? []).some((c) => c.id === rec.call.id),
    );
    if (at < 0) continue;
    const act = ep.messages[at]!;
    out.push(
      rehearsingExample({
        task,
        history: ep.messages.slice(0, at),
        rawActMessage: renderAssistantText(act.content, act.toolCalls ?? []),
        call: rec.call,
        result: rec.result,
        ...(variant ? { variant } : {}),
      }),
    );
  }
  return out;
}

/**
 * Tokenizes an example and marks its targets. A target's mask starts after its role header: the
 * prompt `messages[:k]` with the generation prompt is a prefix of the full rendering (the worker's
 * template guarantees it), so its length is where message k's content begins; the span's end
 * closes it (including the end-of-turn token, which the model must learn to emit).
 */
export async function toSftSequence(tok: Tokenizer, ex: SftExample): Promise<TrainSequence> {
  const full = await tok.tokenize({ messages: ex.messages, ...(ex.tools ? { tools: ex.tools } : {}) });
  const lossMask = new Array<number>(full.tokenIds.length).fill(0);
  for (const k of ex.targets) {
    const span = full.spans.find((s) => s.message === k);
    if (!span) continue;
    // The worker reports where a completion begins (after the role header); servers that do not
    // are asked for the prompt `messages[:k]` + generation prompt, whose length is that position.
    const start =
      span.completionStart ??
      (
        await tok.tokenize({
          messages: ex.messages.slice(0, k),
          ...(ex.tools ? { tools: ex.tools } : {}),
          addGenerationPrompt: true,
        })
      ).tokenIds.length;
    for (let i = Math.max(span.start, Math.min(start, span.end)); i < span.end; i++) lossMask[i] = 1;
  }
  return { tokenIds: full.tokenIds, lossMask, advantages: new Array<number>(full.tokenIds.length).fill(1) };
}

export interface SftOptions {
  epochs: number;
  /** Examples per optimizer step. */
  batchSize: number;
  lr: number;
  warmupSteps?: number;
  schedule?: "constant" | "cosine";
  tokenBudget: number;
  weightDecay?: number;
  maxGradNorm?: number;
  onStep?: (s: { step: number; steps: number; loss: number; lr: number }) => void;
}

/** Cross-entropy SFT: tokenize once, then `epochs` passes of batches, one optim_step per batch. */
export async function runSft(
  engine: TrainEngine,
  tok: Tokenizer,
  examples: readonly SftExample[],
  opts: SftOptions,
): Promise<{ steps: number; lossByStep: number[] }> {
  // A few tokenize requests in flight: the worker answers fast, so it is HTTP latency that hides.
  const seqs = await mapConcurrent(examples, 8, (ex) => toSftSequence(tok, ex));
  const batchesPerEpoch = Math.ceil(seqs.length / opts.batchSize);
  const steps = batchesPerEpoch * opts.epochs;
  const lossByStep: number[] = [];
  for (let step = 1; step <= steps; step++) {
    const b = (step - 1) % batchesPerEpoch;
    const batch = seqs.slice(b * opts.batchSize, (b + 1) * opts.batchSize);
    const lr = learningRate(step, {
      peak: opts.lr,
      totalSteps: steps,
      warmupSteps: opts.warmupSteps ?? 0,
      schedule: opts.schedule ?? "cosine",
    });
    // cross_entropy ignores advantages, so calls cannot be re-weighted: a batch split over several
    // calls adds per-call token-means. Keep `tokenBudget` ≥ a batch's tokens for one token-mean.
    let loss = 0;
    for (const call of packByTokenBudget(batch, opts.tokenBudget).calls) {
      loss += (await engine.forwardBackward({ sequences: call, loss: { fn: "cross_entropy" } })).loss;
    }
    await engine.optimStep({
      lr,
      ...(opts.weightDecay !== undefined ? { weightDecay: opts.weightDecay } : {}),
      ...(opts.maxGradNorm !== undefined ? { maxGradNorm: opts.maxGradNorm } : {}),
    });
    lossByStep.push(loss);
    opts.onStep?.({ step, steps, loss, lr });
  }
  return { steps, lossByStep };
}
