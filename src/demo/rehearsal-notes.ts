import type { Message } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { pastAgentRun, type GoldRun, type PastAgentHabits } from "../envs/toolworld/index.js";
import type { ToolCallRecord } from "../rollout/types.js";
import { digestAttempts } from "../testtime/digest.js";
import { memoryNote, withMemory } from "../testtime/memory-view.js";
import type { RehearsalAttempt } from "../testtime/types.js";

/** The first user turn of a logged run as a rehearsal attempt (its calls, results and reply). */
function attemptOf(run: GoldRun, index: number): RehearsalAttempt {
  const turn = run.turns[0];
  const calls: ToolCallRecord[] = (turn?.calls ?? []).map((c) => ({
    turn: 0,
    call: c.call,
    result: JSON.stringify(c.result),
    ok: true,
    source: "rehearsal",
  }));
  return { index, end: "replied", calls, ...(turn ? { reply: turn.reply } : {}) };
}

/**
 * `messages` with a private rehearsal note in the system message, written exactly as test-time
 * rehearsal writes it (`memoryNote` of a digest), built from logged calls: the logged run itself
 * and, half of the time, another logged attempt at the same task (which may have gone differently,
 * mistakes included), in random order. The target stays the logged run: the actor learns to read
 * a note as context for the act it then makes, instead of meeting notes first at test time.
 */
export function withLoggedNote(
  messages: readonly Message[],
  task: Task,
  run: GoldRun,
  rand: () => number,
  habits?: PastAgentHabits,
): Message[] {
  const attempts = [run];
  if (rand() < 0.5) {
    const other = pastAgentRun(task, rand, habits);
    if (rand() < 0.5) attempts.push(other);
    else attempts.unshift(other);
  }
  const note = memoryNote(digestAttempts(attempts.map((r, i) => attemptOf(r, i))), attempts.length);
  return withMemory(messages, note);
}
