import type { Message } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { mulberry32 } from "../train/task-sampler.js";
import { tasksByWorld, worldmates } from "./worlds.js";
import { pastAgentRun, type GoldRun, type PastAgentHabits } from "../envs/toolworld/index.js";
import type { ToolCallRecord } from "../rollout/types.js";
import { digestAttempts } from "../testtime/digest.js";
import { memoryNote, withMemory } from "../testtime/memory-view.js";
import type { RehearsalAttempt } from "../testtime/types.js";

type GoldCall = GoldRun["turns"][number]["calls"][number];

type Rename = <T>(value: T) => T;
const asLogged: Rename = (v) => v;

/**
 * The first user turn of a logged run as a rehearsal attempt (its calls, results and reply), its
 * names passed through `rename` (only what was logged: the attempt's bookkeeping stays as it is).
 */
function attemptOf(
  run: GoldRun,
  index: number,
  imagine: (c: GoldCall) => unknown = (c) => c.result,
  rename: Rename = asLogged,
): RehearsalAttempt {
  const turn = run.turns[0];
  const calls: ToolCallRecord[] = (turn?.calls ?? []).map((c) => ({
    turn: 0,
    call: rename(c.call),
    result: rename(JSON.stringify(imagine(c))),
    ok: true,
    source: "rehearsal",
  }));
  return { index, end: "replied", calls, ...(turn ? { reply: rename(turn.reply) } : {}) };
}

/** Most attempts a note holds: test-time rehearsal's `parallel:4` / `sequential:4`. */
export const NOTE_MAX_ATTEMPTS = 4;

/**
 * `messages` with a private rehearsal note in the system message, written exactly as test-time
 * rehearsal writes it (`memoryNote` of a digest), built from logs. A note holds 1 to
 * `NOTE_MAX_ATTEMPTS` attempts in random order: the logged run itself (three times in four), other
 * logged attempts at the same task (which may have gone differently, mistakes included), and
 * attempts of other tasks of the same world (`lenders`), which stand for what imagined attempts
 * get wrong: another id, another tool, another fact. The target stays the logged run: the actor
 * learns to read a note as context and to take ids and facts from the conversation, not from the
 * note. Measured (issue 11, seed 1): with notes of 1–2 always-right attempts in SFT, a note of 4
 * imagined attempts cost the SFT model 16 points, as its copying of ids broke (`a21` → `a64`).
 */
export function withLoggedNote(
  messages: readonly Message[],
  task: Task,
  run: GoldRun,
  rand: () => number,
  opts: {
    habits?: PastAgentHabits | undefined;
    lenders?: readonly Task[];
    /**
     * Share of the note's tool results replaced by another task's result of the same tool, as a
     * rehearser gets results wrong (0: the logged results). Experiment (issue 11): with right
     * results only, the RL-trained actor learnt to copy facts from the note instead of the real call.
     */
    noise?: number;
    /**
     * Applied to each attempt before the note's wording is put around it (renamed logs,
     * `tool-aliases.ts`): the attempts' names are renamed, the note's fixed prose never is.
     */
    rename?: Rename;
  } = {},
): Message[] {
  const lenders = (opts.lenders ?? []).filter((t) => t.id !== task.id);
  const count = 1 + Math.floor(rand() * NOTE_MAX_ATTEMPTS);
  const attempts: GoldRun[] = rand() < 0.75 ? [run] : [];
  while (attempts.length < count) {
    const lender =
      lenders.length > 0 && rand() < 0.5 ? lenders[Math.floor(rand() * lenders.length)] : undefined;
    attempts.push(pastAgentRun(lender ?? task, rand, opts.habits));
  }
  shuffle(attempts, rand);
  const noise = opts.noise ?? 0;
  let imagine: ((c: GoldCall) => unknown) | undefined;
  if (noise > 0 && lenders.length > 0) {
    // results of three other tasks' logged calls, by tool: what a wrong rehearsal could answer
    const byTool = new Map<string, unknown[]>();
    for (let i = 0; i < 3; i++) {
      const lender = lenders[Math.floor(rand() * lenders.length)]!;
      for (const p of pastAgentRun(lender, rand, opts.habits).turns[0]?.calls ?? [])
        byTool.set(p.call.name, [...(byTool.get(p.call.name) ?? []), p.result]);
    }
    imagine = (c) => {
      if (rand() >= noise) return c.result;
      const same = byTool.get(c.call.name) ?? [];
      return same.length > 0 ? same[Math.floor(rand() * same.length)] : c.result;
    };
  }
  const imagined = attempts.map((r, i) => attemptOf(r, i, imagine, opts.rename));
  const note = memoryNote(digestAttempts(imagined), attempts.length);
  return withMemory(messages, note);
}

function shuffle<T>(xs: T[], rand: () => number): void {
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
}

/**
 * RL tasks of which a share carry a rehearsal note in their system prompt, built from the task's
 * logged runs as in SFT (`withLoggedNote`), so that RL keeps meeting notes (issue 11 asks for notes
 * in RL episodes; measured on seed 0, the test-time loss with them was within the rows' own noise of
 * the loss without). Single-turn tasks only (a note is about one user turn); a task gets the same
 * note on every step, so a GRPO group compares samples under one note.
 */
export function tasksWithLoggedNotes(
  tasks: readonly Task[],
  share: number,
  seed: number,
  habits?: PastAgentHabits,
): Task[] {
  if (share <= 0) return tasks.slice();
  const rand = mulberry32(seed ^ 0x6e07e5);
  const byWorld = tasksByWorld(tasks);
  return tasks.map((task) => {
    if (task.user_turns.length !== 1 || rand() >= share) return task;
    const run = pastAgentRun(task, rand, habits);
    const system = withLoggedNote([{ role: "system", content: task.system }], task, run, rand, {
      habits,
      lenders: worldmates(byWorld, task),
    })[0];
    return { ...task, system: system?.content ?? task.system };
  });
}
