import { canonicalJson } from "../core/canonical-json.js";
import type { ToolCall } from "../core/messages.js";
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

/**
 * A call's name and arguments: what makes two calls the same call. Canonical JSON, because two
 * attempts (or an attempt and the committed actor) that write the same arguments in another key
 * order make the same call: the refusal vote and the guard must count them together.
 */
export const toolCallKey = (call: ToolCall) => `${call.name}${canonicalJson(call.arguments)}`;
const callKey = (c: ToolCallRecord) => toolCallKey(c.call);

/** A turn's calls (name and arguments, in order) and whether it ended with a reply to the user. */
export function callSignature(calls: readonly ToolCallRecord[], replied: boolean): string {
  return `${calls.map(callKey).join(" ; ")} => ${replied ? "reply" : "no reply"}`;
}

export const attemptSignature = (a: RehearsalAttempt): string => callSignature(a.calls, a.end === "replied");

/**
 * Calls (name and arguments) that the tools refused in more than half of the attempts that made
 * them: what the rehearsal learnt not to do. One imagined refusal against agreeing successes is
 * noise of the imagined world, not news.
 */
export function refusedCalls(attempts: readonly RehearsalAttempt[]): Set<string> {
  const made = new Map<string, { n: number; refused: number }>();
  for (const a of attempts)
    for (const c of a.calls) {
      const m = made.get(callKey(c)) ?? { n: 0, refused: 0 };
      m.n++;
      if (isErrorResult(c)) m.refused++;
      made.set(callKey(c), m);
    }
  return new Set([...made].filter(([, m]) => m.refused * 2 > m.n).map(([k]) => k));
}

/** The attempt as a plan: its calls without the refused ones (the rest of it as it was). */
function withoutRefused(a: RehearsalAttempt, refused: ReadonlySet<string>): RehearsalAttempt {
  const kept = (calls: readonly ToolCallRecord[]) => calls.filter((c) => !refused.has(callKey(c)));
  if (!a.calls.some((c) => refused.has(callKey(c)))) return a;
  const plan: RehearsalAttempt = { ...a, calls: kept(a.calls) };
  // an attempt that went on past the reply (τ²) is digested from its turns
  if (a.turns) plan.turns = a.turns.map((t) => ({ ...t, calls: kept(t.calls) }));
  return plan;
}

/**
 * What the note shows of the rehearsal (memory `consensus`): the plan most attempts agree on.
 * Each attempt becomes a plan without the calls the rehearsal found refused (`refusedCalls`);
 * among the plans that reached a reply (all of them when none did), the most frequent one (same
 * calls with the same arguments, same ending) wins; ties go to a plan an attempt carried out
 * whole, then to the earliest. Why not every attempt (`digest`): a small actor copies from the
 * note, and in a digest of four it copied the minority attempt, and the refused write, as readily
 * as the majority (issue 11, seed 3: forbidden writes 11 → 22 with a digest note).
 */
export function consensusPlan(attempts: readonly RehearsalAttempt[]): RehearsalAttempt | undefined {
  const refused = refusedCalls(attempts);
  const plans = attempts.map((a) => {
    const plan = withoutRefused(a, refused);
    return { plan, sig: attemptSignature(plan), whole: plan === a, heard: heardRefusals(a, refused) };
  });
  const replied = plans.filter((p) => p.plan.end === "replied");
  const pool = replied.length > 0 ? replied : plans;
  const counts = new Map<string, number>();
  for (const { sig } of pool) counts.set(sig, (counts.get(sig) ?? 0) + 1);
  const top = Math.max(0, ...counts.values());
  // ties: a plan some attempt carried out whole (nothing refused) before one pieced together
  const modal = pool.filter((p) => counts.get(p.sig) === top);
  const first = modal.find((p) => p.whole) ?? modal[0];
  if (!first) return undefined;
  // of the attempts behind the winning plan, one that was told no where the plan leaves a call
  // out: its reply was written knowing it
  return (pool.find((p) => p.sig === first.sig && p.heard) ?? first).plan;
}

/** Every refused call the attempt made was refused to it too. */
function heardRefusals(a: RehearsalAttempt, refused: ReadonlySet<string>): boolean {
  return a.calls.every((c) => !refused.has(callKey(c)) || isErrorResult(c));
}
