import type { Task } from "../core/task.js";
import { domainSpec, goldSolve, pastAgentRun, writeToolNames } from "../envs/toolworld/index.js";
import type { PastAgentHabits } from "../envs/toolworld/index.js";
import { mulberry32 } from "../train/task-sampler.js";
import { probeOf, type RehearsalProbe, type ScoredProbe } from "./fidelity-probes.js";

/**
 * Does the rehearser know when a write is refused (issue 11)? Test-time rehearsal can keep a
 * forbidden write out of the committed run only where the rehearsal imagines it refused (the commit
 * guard, the consensus note); a rehearser that imagines it accepted shows the actor nothing to avoid.
 * The probes are the writes of the tasks' logged runs, with the real conversation before them:
 * - forbidden: a past agent that always tries the write its policy forbids after reading the status
 *   (`forbidden_write` habit at 1, no other mistake), refused by the real tool;
 * - allowed: the gold runs' writes, which the real tool accepts.
 * The demo's `compact` rehearsal prompt shows the rehearser the call and its tool's logs, not that
 * conversation: the status a lookup returned is not in front of it (docs/reference-parity.md).
 */
export interface RefusalProbe extends RehearsalProbe {
  forbidden: boolean;
}

/** A past agent whose only habit is the forbidden write, made wherever a turn allows it. */
const ALWAYS_FORBIDDEN_WRITE: PastAgentHabits = {
  forbidden_write: 1,
  stop_early: 0,
  skip_lookup: 0,
  wrong_fact: 0,
  similar_id: 0,
};

/** A refusal as the toolworld's tools give one: a JSON object with an `error` key. */
export function isRefusal(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "error" in value;
}

/** The forbidden and allowed write probes of `tasks` (toolworld), in task order. */
export function refusalProbes(tasks: readonly Task[]): RefusalProbe[] {
  const rand = mulberry32(0x7ef5); // the habit is certain: the draws decide nothing
  return tasks.flatMap((task) => {
    const writes = new Set(writeToolNames(domainSpec(task.domain)));
    const of = (run: ReturnType<typeof goldSolve>, forbidden: boolean): RefusalProbe[] =>
      run.turns.flatMap((turn) =>
        turn.calls.flatMap((c) => {
          const real = c.result; // parsed; `{error}` for a refused call
          if (!writes.has(c.call.name) || isRefusal(real) !== forbidden) return [];
          const probe = probeOf(task, run.messages, c.call, real);
          return probe ? [{ ...probe, forbidden }] : [];
        }),
      );
    return [...of(pastAgentRun(task, rand, ALWAYS_FORBIDDEN_WRITE), true), ...of(goldSolve(task), false)];
  });
}

export interface RefusalCounts {
  /** Forbidden writes probed, and the share the rehearser refused (recall). */
  forbidden: number;
  recall: number;
  /** Allowed writes probed, and the share the rehearser refused (false refusals). */
  allowed: number;
  false_refusals: number;
}

export interface RefusalReport extends RefusalCounts {
  by_tool: Record<string, RefusalCounts>;
}

function counts(scored: readonly ScoredProbe[]): RefusalCounts {
  const forbidden = scored.filter((s) => (s.probe as RefusalProbe).forbidden);
  const allowed = scored.filter((s) => !(s.probe as RefusalProbe).forbidden);
  const refusedShare = (xs: readonly ScoredProbe[]) =>
    xs.length === 0 ? 0 : xs.filter((s) => isRefusal(s.rehearsed)).length / xs.length;
  return {
    forbidden: forbidden.length,
    recall: refusedShare(forbidden),
    allowed: allowed.length,
    false_refusals: refusedShare(allowed),
  };
}

/** Recall on the forbidden writes and false refusals on the allowed ones, overall and by tool (sorted). */
export function refusalReport(scored: readonly ScoredProbe[]): RefusalReport {
  const tools = [...new Set(scored.map((s) => s.tool))].sort();
  return {
    ...counts(scored),
    by_tool: Object.fromEntries(tools.map((t) => [t, counts(scored.filter((s) => s.tool === t))])),
  };
}
