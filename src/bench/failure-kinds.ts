import type { Rule, Task } from "../core/task.js";
import type { EpisodeResult } from "../rollout/types.js";

/**
 * Why a failed episode failed, read from its checklist verdicts (issue 11: which of the past
 * agent's mistakes a policy still makes, and which ones RL removed). One kind per failed episode,
 * from the first scored turn with a failing standard; within that turn the first of:
 * - `wrong_arguments`: a required tool called, but not with the required arguments (a similar
 *   entity's id: what follows from it, a forbidden write on that entity or a missing write, is a
 *   consequence, so this comes first);
 * - `forbidden_call`: a call the checklist forbids (a write the policy rules out);
 * - `missing_call`: a required call never made (a skipped lookup, a stop after the first call);
 * - `reply_fact`: the reply to the user lacks a required fact or states a contradicting one;
 * - `judged`: only standards without a rule failed (the LLM judge's verdicts);
 * - `not_finished`: nothing scored failed, but the episode did not finish (an invalid call, a
 *   turn limit, a model error, a masked judge).
 */
export const FAILURE_KINDS = [
  "wrong_arguments",
  "forbidden_call",
  "missing_call",
  "reply_fact",
  "judged",
  "not_finished",
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

/** Failed episodes per kind, and the episodes counted (successes included). */
export type FailureCounts = Record<FailureKind, number> & { episodes: number };

function ruleKind(rule: Rule | undefined, calledInTurn: ReadonlySet<string>): FailureKind {
  if (!rule) return "judged";
  if ("forbid" in rule) return "forbidden_call";
  if ("call" in rule) return calledInTurn.has(rule.call) ? "wrong_arguments" : "missing_call";
  return "reply_fact";
}

/** `null` for a successful episode. */
export function failureKind(task: Task, episode: EpisodeResult): FailureKind | null {
  if (episode.success) return null;
  const verdicts = episode.standardsPassed ?? [];
  for (let turn = 0; turn < verdicts.length; turn++) {
    const called = new Set(episode.calls.filter((c) => c.turn === turn).map((c) => c.call.name));
    const kinds = new Set<FailureKind>();
    verdicts[turn]!.forEach((byStandard, checklist) =>
      byStandard.forEach((passed, k) => {
        if (!passed) kinds.add(ruleKind(task.checklists[checklist]?.[turn]?.[k]?.rule, called));
      }),
    );
    const first = FAILURE_KINDS.find((kind) => kinds.has(kind));
    if (first) return first;
  }
  return "not_finished";
}

/** `episodes[i]` is an episode of `tasks[i]`. */
export function countFailures(tasks: readonly Task[], episodes: readonly EpisodeResult[]): FailureCounts {
  const counts = sumFailures([]);
  counts.episodes = episodes.length;
  episodes.forEach((episode, i) => {
    const kind = failureKind(tasks[i]!, episode);
    if (kind) counts[kind]++;
  });
  return counts;
}

/** Counts added up (several seeds' evaluations); all zero for none. */
export function sumFailures(counts: readonly FailureCounts[]): FailureCounts {
  const sum = (k: keyof FailureCounts) => counts.reduce((a, c) => a + c[k], 0);
  const out = Object.fromEntries(FAILURE_KINDS.map((k) => [k, sum(k)])) as FailureCounts;
  out.episodes = sum("episodes");
  return out;
}
