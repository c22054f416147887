import { canonicalJson } from "../core/canonical-json.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { createToolworldEnv, domainSpec, goldSolve, writeToolNames } from "../envs/toolworld/index.js";
import { realResponder } from "../rollout/real-responder.js";
import { rehearsalResponder } from "../rollout/model-responder.js";
import { runEpisodes } from "../rollout/scheduler.js";
import type { Responder } from "../rollout/responder.js";
import type { EpisodeOptions } from "../rollout/episode.js";
import type { EpisodeResult } from "../rollout/types.js";
import type { DemoRehearsalPrompt } from "./layout.js";

/** Decoding for evaluation: greedy, short (toolworld acts and rehearsals are < 100 tokens). */
export const EVAL_DECODING = { temperature: 0, maxTokens: 96, maxAssistantTurns: 4, maxParallelCalls: 4 };

/** An evaluation episode's options (`EVAL_DECODING`; greedy unless a caller overrides it). */
export function evalEpisodeOptions(
  policy: ChatModel,
  responder: Responder,
  contextBudgetTokens = 2048,
): EpisodeOptions {
  return {
    policy,
    responder,
    temperature: EVAL_DECODING.temperature,
    maxTokens: EVAL_DECODING.maxTokens,
    maxAssistantTurns: EVAL_DECODING.maxAssistantTurns,
    maxParallelCalls: EVAL_DECODING.maxParallelCalls,
    contextBudgetTokens,
  };
}

export interface EvalOutcome {
  episodes: EpisodeResult[];
  /** 1/0 per task (every checklist standard met). */
  success: number[];
  reward: number[];
  envCalls: number;
}

/** Runs each task once, greedily, against `responder` (the real environments unless told otherwise). */
export async function runEvalEpisodes(
  policy: ChatModel,
  tasks: readonly Task[],
  opts: { concurrency: number; responder?: Responder; contextBudgetTokens?: number },
): Promise<EvalOutcome> {
  const responder = opts.responder ?? realResponder((t) => createToolworldEnv(t));
  const options = evalEpisodeOptions(policy, responder, opts.contextBudgetTokens);
  const episodes = await runEpisodes(
    tasks.map((task) => ({ task, options })),
    { concurrency: opts.concurrency },
  );
  return {
    episodes,
    success: episodes.map((e) => (e.success ? 1 : 0)),
    reward: episodes.map((e) => e.reward ?? 0),
    envCalls: episodes.reduce((a, e) => a + e.envCalls, 0),
  };
}

/** Success measured inside the policy's own rehearsed world (the co-adaptation diagnostic). */
export function runRehearsedWorld(
  policy: ChatModel,
  tasks: readonly Task[],
  concurrency: number,
  variant: DemoRehearsalPrompt,
): Promise<EvalOutcome> {
  const responder = rehearsalResponder(policy, {
    variant,
    temperature: 0,
    maxTokens: EVAL_DECODING.maxTokens,
  });
  return runEvalEpisodes(policy, tasks, { concurrency, responder });
}

/** Share of tasks whose first act call is exactly the gold first call (name and arguments). */
export function firstCallCopy(episodes: readonly EpisodeResult[], tasks: readonly Task[]): number {
  return firstCallTransfer(episodes, tasks).exact;
}

/**
 * Write-call copy (issue 11's gate): of the gold run's write calls that the policy also made (a
 * call to the same tool in the task), the share it made with exactly the gold arguments. The first
 * call copies from the request alone; a write call comes after a lookup, and its details (the day,
 * the amount) must be copied from the request past a response that names another one. Under v10,
 * seeds 3 and 9 copied their first calls 100% of the time and wrote the wrong day or amount in about
 * half of their writes. 0 when the policy made none of the gold writes (nothing shows it can copy).
 */
export function writeCallCopy(episodes: readonly EpisodeResult[], tasks: readonly Task[]): number {
  let made = 0;
  let exact = 0;
  episodes.forEach((ep, i) => {
    const task = tasks[i]!;
    const writes = new Set(writeToolNames(domainSpec(task.domain)));
    for (const gold of goldSolve(task).turns.flatMap((t) => t.calls.map((c) => c.call))) {
      if (!writes.has(gold.name)) continue;
      const own = ep.calls.filter((c) => c.call.name === gold.name);
      if (own.length === 0) continue;
      made++;
      const args = canonicalJson(gold.arguments);
      if (own.some((c) => canonicalJson(c.call.arguments) === args)) exact++;
    }
  });
  return made === 0 ? 0 : exact / made;
}

/**
 * Where transfer to a domain fails, from the first act call of each task (issue 11): the share whose
 * first call names one of the domain's tools at all (`domain_tool`: read from the prompt's tool
 * index, never a training domain's), names the gold first call's tool (`right_tool`), and matches
 * it exactly, arguments included (`exact`).
 */
export function firstCallTransfer(
  episodes: readonly EpisodeResult[],
  tasks: readonly Task[],
): { domain_tool: number; right_tool: number; exact: number } {
  let domainTool = 0;
  let rightTool = 0;
  let exact = 0;
  episodes.forEach((ep, i) => {
    const task = tasks[i]!;
    const gold = goldSolve(task).turns[0]?.calls[0]?.call;
    const first = ep.calls[0]?.call;
    if (!first) return;
    if (task.tools.some((t) => t.name === first.name)) domainTool++;
    if (gold && first.name === gold.name) {
      rightTool++;
      if (canonicalJson(first.arguments) === canonicalJson(gold.arguments)) exact++;
    }
  });
  const n = Math.max(1, episodes.length);
  return { domain_tool: domainTool / n, right_tool: rightTool / n, exact: exact / n };
}
