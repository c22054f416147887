import type { Task } from "../core/task.js";
import type { EnvFactory } from "../rollout/real-responder.js";
import type { ToolCallRecord } from "../rollout/types.js";
import type { RehearsalAttempt } from "../testtime/types.js";
import { isErrorResult } from "../testtime/consensus.js";

/** Did the real environment also say no where the rehearsal imagined a tool refusing? */
export type ErrorReplay = "confirmed" | "false_alarm";

/** A tool that said no in an imagined attempt: an error result from the rehearser, not a call validation refused. */
export function isImaginedRefusal(c: ToolCallRecord): boolean {
  return c.source !== "validation" && isErrorResult(c);
}

/**
 * Replays an attempt's calls in a fresh real environment, after the committed run's real calls
 * before the rehearsed turn (the state the attempt imagined from), up to its first imagined
 * refusal, and says whether the real tool refused that call too. An imagined "not found" that the
 * real world does not confirm is the rehearser's mistake: the news a rehearsal brings is only worth
 * what these replays confirm (issue 11, test-time target). Undefined when the attempt imagined no
 * refusal. Only rehearsals made before a turn's first real call (scope `turn`) have this prefix.
 */
export async function replayImaginedError(
  task: Task,
  envFactory: EnvFactory,
  before: readonly ToolCallRecord[],
  attempt: RehearsalAttempt,
): Promise<ErrorReplay | undefined> {
  const at = attempt.calls.findIndex(isImaginedRefusal);
  if (at < 0) return undefined;
  const env = await envFactory(task);
  try {
    // the prefix's own results are not judged: only the state they leave matters
    for (const c of before) if (c.source !== "validation") await env.call(c.call);
    for (const c of attempt.calls.slice(0, at)) if (c.source !== "validation") await env.call(c.call);
    const real = await env.call(attempt.calls[at]!.call);
    const said = {
      ...attempt.calls[at]!,
      ok: real.ok,
      result: real.ok ? real.content : "",
      source: "real" as const,
    };
    return isErrorResult(said) ? "confirmed" : "false_alarm";
  } finally {
    await env.close?.();
  }
}
