import { mapConcurrent } from "../core/map-concurrent.js";
import type { Message, ToolCall } from "../core/messages.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import { fidelity, parseMaybeJson, type FidelityScore } from "../bench/fidelity.js";
import { goldSolve } from "../envs/toolworld/index.js";
import { buildRehearsalPrompt } from "../rollout/rehearsal-prompt.js";
import { parseExecutionResult } from "../rollout/execution-result.js";
import type { EpisodeResult } from "../rollout/types.js";
import { EVAL_DECODING } from "./evaluate.js";
import { callKey } from "./worlds.js";
import type { DemoRehearsalPrompt } from "./layout.js";

/** One call to rehearse: the conversation before it, the call, and the response the environment gave. */
export interface RehearsalProbe {
  task: Task;
  history: Parameters<typeof buildRehearsalPrompt>[0]["history"];
  call: Parameters<typeof buildRehearsalPrompt>[0]["call"];
  rawActMessage: string;
  real: unknown;
}

export interface FidelityOptions {
  /** How many probes to score at most, spread evenly over the tasks' domains (`spreadAcrossDomains`). */
  max: number;
  concurrency: number;
  /** Only calls whose answer the prompt's examples do not show (issue 11's `fidelity_unseen`). */
  unseenOnly?: boolean;
  /** The rehearsal prompt (the demo passes `DemoPlan.rehearsalPrompt`). */
  variant: DemoRehearsalPrompt;
}

/** Whether the probe's exact call (name and arguments) is among the examples its prompt shows. */
export function answerInPrompt(p: RehearsalProbe): boolean {
  const key = callKey(p.call);
  return p.task.examples.some((e) => callKey(e) === key);
}

/**
 * At most `max` probes, taken from each domain in turn (each domain's probes in their order). The
 * evaluation sets list their tasks domain by domain, so the first `max` calls alone would all come
 * from the first domain: on seed 1 the 80-call figure measured the bank alone (46% there, 62% over
 * both domains' 506 calls).
 */
export function spreadAcrossDomains<P extends { task: Pick<Task, "domain"> }>(
  probes: readonly P[],
  max: number,
): P[] {
  const byDomain = new Map<string, P[]>();
  for (const p of probes) {
    const list = byDomain.get(p.task.domain);
    if (list) list.push(p);
    else byDomain.set(p.task.domain, [p]);
  }
  const queues = [...byDomain.values()];
  const picked: P[] = [];
  for (let i = 0; picked.length < max && queues.some((q) => i < q.length); i++) {
    for (const q of queues) {
      if (i < q.length && picked.length < max) picked.push(q[i]!);
    }
  }
  return picked;
}

async function scoreProbes(
  policy: ChatModel,
  probes: readonly RehearsalProbe[],
  concurrency: number,
  variant: DemoRehearsalPrompt,
): Promise<{ score: FidelityScore; rehearsed: unknown }[]> {
  return mapConcurrent(probes, concurrency, async (p) => {
    const messages = buildRehearsalPrompt({ ...p, variant });
    const out = await policy.chat({ messages, temperature: 0, maxTokens: EVAL_DECODING.maxTokens });
    const parsed = parseExecutionResult(out.samples[0]?.text ?? "");
    return parsed.ok
      ? { score: fidelity(parsed.value, p.real), rehearsed: parsed.value }
      : { score: { exact: false, f1: 0 }, rehearsed: undefined };
  });
}

/** The probes the options select: unseen ones only if asked, then at most `max`, spread over the domains. */
export function selectProbes(
  probes: readonly RehearsalProbe[],
  opts: Pick<FidelityOptions, "max" | "unseenOnly">,
): RehearsalProbe[] {
  const eligible = opts.unseenOnly === true ? probes.filter((p) => !answerInPrompt(p)) : probes;
  return spreadAcrossDomains(eligible, opts.max);
}

/** The probe of `call`, made in one of `messages`: the conversation before that message is its history. */
export function probeOf(
  task: Task,
  messages: readonly Message[],
  call: ToolCall,
  real: unknown,
): RehearsalProbe | undefined {
  const at = messages.findIndex((m) => (m.toolCalls ?? []).some((x) => x.id === call.id));
  if (at < 0) return undefined;
  const act = messages[at]!;
  return {
    task,
    history: messages.slice(0, at),
    call,
    rawActMessage: renderAssistantText(act.content, act.toolCalls ?? []),
    real,
  };
}

/** The gold runs' calls of `tasks` as probes, in task order. */
export function recordedProbes(tasks: readonly Task[]): RehearsalProbe[] {
  return tasks.flatMap((task) => {
    const run = goldSolve(task);
    return run.turns.flatMap((turn) =>
      turn.calls.flatMap((c) => probeOf(task, run.messages, c.call, c.result) ?? []),
    );
  });
}

/** Every real call of real-environment episodes as a probe, in episode order. */
export function ownCallProbes(tasks: readonly Task[], episodes: readonly EpisodeResult[]): RehearsalProbe[] {
  return episodes.flatMap((ep, i) =>
    ep.calls.flatMap((rec) =>
      rec.source === "real"
        ? (probeOf(tasks[i]!, ep.messages, rec.call, parseMaybeJson(rec.result)) ?? [])
        : [],
    ),
  );
}

/** A rehearsed probe's score, with the tool it called (where a fidelity figure fails, by tool). */
export interface ScoredProbe {
  tool: string;
  score: FidelityScore;
  probe: RehearsalProbe;
  /** The rehearsed result as parsed (undefined: no result could be parsed). */
  rehearsed: unknown;
}

/**
 * Fidelity on the probes the options select (`selectProbes`): recorded calls (`recordedProbes`),
 * rehearsed with the prompt and the evidence (`task.examples`) their tasks carry — their own
 * recorded calls (the answers are in the prompt: a copying test) or other tasks' calls (evaluation
 * hygiene: the answers are not) — or the policy's own calls (`ownCallProbes`), rehearsed afterwards.
 */
export async function probeFidelity(
  policy: ChatModel,
  probes: readonly RehearsalProbe[],
  opts: FidelityOptions,
  known: ProbeScores = new Map(),
): Promise<ScoredProbe[]> {
  const picked = selectProbes(probes, opts);
  const fresh = picked.filter((p) => !known.has(p));
  const scored = await scoreProbes(policy, fresh, opts.concurrency, opts.variant);
  fresh.forEach((p, i) => known.set(p, scored[i]!));
  return picked.map((p) => ({ tool: p.call.name, probe: p, ...known.get(p)! }));
}

/**
 * Rehearsed scores by probe (the object), shared by `probeFidelity` calls whose selections overlap
 * (all of the policy's own calls, then its unseen ones): decoding is greedy, so a probe rehearsed
 * again would score the same, and each costs a model call.
 */
export type ProbeScores = Map<RehearsalProbe, { score: FidelityScore; rehearsed: unknown }>;

/** Exact matches (`hits`) and probes (`n`) per tool: which calls a fidelity figure loses (sorted by tool). */
export function fidelityByTool(scored: readonly ScoredProbe[]): Record<string, { hits: number; n: number }> {
  const out: Record<string, { hits: number; n: number }> = {};
  for (const { tool, score } of [...scored].sort((a, b) => a.tool.localeCompare(b.tool))) {
    const t = (out[tool] ??= { hits: 0, n: 0 });
    t.n += 1;
    if (score.exact) t.hits += 1;
  }
  return out;
}
