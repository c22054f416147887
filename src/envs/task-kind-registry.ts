import type { Message, ToolCall } from "../core/messages.js";
import type { Task } from "../core/task.js";

/**
 * What a kind of task (its `env.kind`) offers training beyond its real environment (which
 * `task-environment.ts` builds): a gold solver for SFT warm-up and text for the tiny model's
 * tokenizer. Kinds register themselves (`src/envs/toolworld/register.ts`), so the training library
 * never names a domain; a kind without an entry simply has no gold runs and no special corpus.
 */
export interface TaskKind {
  /** A reference solution of the task (SFT on gold trajectories). */
  goldRun?(task: Task): GoldTrajectory;
  /** Text to train the tiny model's tokenizer on, from tasks of this kind. */
  corpus?(tasks: readonly Task[]): string;
  /** Whole tokens (ids, names) the tiny model's vocabulary should hold for tasks of this kind. */
  vocabulary?(tasks: readonly Task[]): string[];
}

/** A solved task: the whole conversation, and each user turn's calls with their real results. */
export interface GoldTrajectory {
  messages: Message[];
  turns: ReadonlyArray<{ calls: ReadonlyArray<{ call: ToolCall; ok: boolean; result: unknown }> }>;
}

const kinds = new Map<string, TaskKind>();

/** Register (or replace) what the task kind `name` offers. */
export function registerTaskKind(name: string, kind: TaskKind): void {
  kinds.set(name, kind);
}

/** Names of the registered kinds, sorted. */
export function taskKindNames(): string[] {
  return [...kinds.keys()].sort();
}

/** The registered entry for a task's `env.kind`, if any. */
export function taskKindOf(task: Task): TaskKind | undefined {
  const name = task.env?.kind;
  return name === undefined ? undefined : kinds.get(name);
}
