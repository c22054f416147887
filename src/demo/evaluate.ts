import { canonicalJson } from "../core/canonical-json.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { fidelity, parseMaybeJson, type FidelityScore } from "../bench/fidelity.js";
import { createToolworldEnv, domainSpec, goldSolve, writeToolNames } from "../envs/toolworld/index.js";
import { buildRehearsalPrompt } from "../rollout/rehearsal-prompt.js";
import { parseExecutionResult } from "../rollout/execution-result.js";
import { realResponder } from "../rollout/real-responder.js";
import { rehearsalResponder } from "../rollout/model-responder.js";
import { runEpisodes } from "../rollout/scheduler.js";
import type { Responder } from "../rollout/responder.js";
import type { EpisodeResult } from "../rollout/types.js";
import { renderAssistantText } from "../core/tool-call-text.js";

/** Decoding for evaluation: greedy, short (toolworld acts and rehearsals are < 100 tokens). */
export const EVAL_DECODING = { temperature: 0, maxTokens: 96, maxAssistantTurns: 4, maxParallelCalls: 4 };

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
  const episodes = await runEpisodes(
    tasks.map((task) => ({
      task,
      options: {
        policy,
        responder,
        temperature: EVAL_DECODING.temperature,
        maxTokens: EVAL_DECODING.maxTokens,
        maxAssistantTurns: EVAL_DECODING.maxAssistantTurns,
        maxParallelCalls: EVAL_DECODING.maxParallelCalls,
        contextBudgetTokens: opts.contextBudgetTokens ?? 2048,
      },
    })),
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
): Promise<EvalOutcome> {
  const responder = rehearsalResponder(policy, {
    variant: "compact",
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

interface RehearsalProbe {
  task: Task;
  history: Parameters<typeof buildRehearsalPrompt>[0]["history"];
  call: Parameters<typeof buildRehearsalPrompt>[0]["call"];
  rawActMessage: string;
  real: unknown;
}

async function scoreProbes(
  policy: ChatModel,
  probes: readonly RehearsalProbe[],
  concurrency: number,
): Promise<FidelityScore[]> {
  return mapConcurrent(probes, concurrency, async (p) => {
    const messages = buildRehearsalPrompt({ ...p, variant: "compact" });
    const out = await policy.chat({ messages, temperature: 0, maxTokens: EVAL_DECODING.maxTokens });
    const parsed = parseExecutionResult(out.samples[0]?.text ?? "");
    return parsed.ok ? fidelity(parsed.value, p.real) : { exact: false, f1: 0 };
  });
}

/** Whether the probe's exact call (name and arguments) is among the examples its prompt shows. */
function answerInPrompt(p: RehearsalProbe): boolean {
  const key = canonicalJson({ n: p.call.name, a: p.call.arguments });
  return p.task.examples.some((e) => canonicalJson({ n: e.name, a: e.arguments }) === key);
}

/** Fidelity scores of the probes, all of them or only those whose answer is not in the prompt. */
async function fidelityOf(
  policy: ChatModel,
  probes: readonly RehearsalProbe[],
  concurrency: number,
  unseenOnly: boolean,
): Promise<FidelityScore[]> {
  return scoreProbes(policy, unseenOnly ? probes.filter((p) => !answerInPrompt(p)) : probes, concurrency);
}

export interface FidelityOptions {
  max: number;
  concurrency: number;
  /** Only calls whose answer the prompt's examples do not show (issue 11's `fidelity_unseen`). */
  unseenOnly?: boolean;
}

/**
 * Fidelity on recorded calls: the gold runs' calls of `tasks`, rehearsed with the prompt and the
 * evidence (`task.examples`) that `tasks` carry: their own recorded calls (the answers are in the
 * prompt: a copying test) or other tasks' calls (evaluation hygiene: the answers are not).
 */
export async function recordedFidelity(
  policy: ChatModel,
  tasks: readonly Task[],
  opts: FidelityOptions,
): Promise<FidelityScore[]> {
  const { max } = opts;
  const probes: RehearsalProbe[] = [];
  for (const task of tasks) {
    const run = goldSolve(task);
    for (const turn of run.turns) {
      for (const c of turn.calls) {
        if (probes.length >= max) break;
        const at = run.messages.findIndex((m) => (m.toolCalls ?? []).some((x) => x.id === c.call.id));
        const act = run.messages[at]!;
        probes.push({
          task,
          history: run.messages.slice(0, at),
          call: c.call,
          rawActMessage: renderAssistantText(act.content, act.toolCalls ?? []),
          real: c.result,
        });
      }
    }
  }
  return fidelityOf(policy, probes, opts.concurrency, opts.unseenOnly === true);
}

/** Fidelity on the policy's own calls: every real call of real-environment episodes, rehearsed afterwards. */
export async function ownCallFidelity(
  policy: ChatModel,
  tasks: readonly Task[],
  episodes: readonly EpisodeResult[],
  opts: FidelityOptions,
): Promise<FidelityScore[]> {
  const { max } = opts;
  const probes: RehearsalProbe[] = [];
  episodes.forEach((ep, i) => {
    for (const rec of ep.calls) {
      if (rec.source !== "real" || probes.length >= max) continue;
      const at = ep.messages.findIndex((m) => (m.toolCalls ?? []).some((x) => x.id === rec.call.id));
      if (at < 0) continue;
      const act = ep.messages[at]!;
      probes.push({
        task: tasks[i]!,
        history: ep.messages.slice(0, at),
        call: rec.call,
        rawActMessage: renderAssistantText(act.content, act.toolCalls ?? []),
        real: parseMaybeJson(rec.result),
      });
    }
  });
  return fidelityOf(policy, probes, opts.concurrency, opts.unseenOnly === true);
}
