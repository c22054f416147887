import type { ToolCallRecord } from "../rollout/types.js";
import type { RehearsalAttempt } from "./types.js";

/** An error result: refused by validation or the responder, or a JSON object with an `error` key. */
export function isErrorResult(c: ToolCallRecord): boolean {
  if (!c.ok) return true;
  try {
    const v: unknown = JSON.parse(c.result);
    return typeof v === "object" && v !== null && !Array.isArray(v) && "error" in v;
  } catch {
    return false;
  }
}

/** A turn's calls (name and arguments, in order) and whether it ended with a reply to the user. */
export function callSignature(calls: readonly ToolCallRecord[], replied: boolean): string {
  const parts = calls.map((c) => `${c.call.name}${JSON.stringify(c.call.arguments)}`);
  return `${parts.join(" ; ")} => ${replied ? "reply" : "no reply"}`;
}

export const attemptSignature = (a: RehearsalAttempt): string => callSignature(a.calls, a.end === "replied");

/** An attempt that ran to a reply with no tool saying no: the rehearsal found nothing wrong with it. */
const clean = (a: RehearsalAttempt) => a.end === "replied" && !a.calls.some(isErrorResult);

/**
 * The attempt the most attempts agree with (same calls with the same arguments, same ending),
 * among the clean ones (every attempt when none is clean); ties go to the earliest. The one piece
 * of news an imagined attempt brings is a tool that said no, so an attempt that met one is not the
 * plan to follow when another attempt got through; the majority of the rest is what the policy
 * does most often from this state.
 */
export function consensusAttempt(attempts: readonly RehearsalAttempt[]): RehearsalAttempt | undefined {
  const pool = attempts.some(clean) ? attempts.filter(clean) : attempts;
  const counts = new Map<string, number>();
  for (const a of pool) counts.set(attemptSignature(a), (counts.get(attemptSignature(a)) ?? 0) + 1);
  let best: RehearsalAttempt | undefined;
  for (const a of pool)
    if (best === undefined || counts.get(attemptSignature(a))! > counts.get(attemptSignature(best))!)
      best = a;
  return best;
}

/**
 * What the note shows of the rehearsal (memory `consensus`): the consensus attempt without the
 * calls a tool said no to. When every attempt met a refusal, the majority's refused call is the
 * one thing the rehearsal learnt not to do; shown as it was, a small actor copies it (issue 11,
 * seed 2: 74 of 93 imagined forbidden writes were imagined refused, and the committed run made
 * them anyway).
 */
export function consensusPlan(attempts: readonly RehearsalAttempt[]): RehearsalAttempt | undefined {
  const chosen = consensusAttempt(attempts);
  if (!chosen || !chosen.calls.some(isErrorResult)) return chosen;
  const kept = (calls: readonly ToolCallRecord[]) => calls.filter((c) => !isErrorResult(c));
  const plan: RehearsalAttempt = { ...chosen, calls: kept(chosen.calls) };
  // an attempt that went on past the reply (τ²) is digested from its turns
  if (chosen.turns) plan.turns = chosen.turns.map((t) => ({ ...t, calls: kept(t.calls) }));
  return plan;
}
