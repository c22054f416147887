import { EnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";

/** A generated task source as a config writes it (`tasks: {generator: NAME, count: 4, …}`). */
export interface TaskGeneratorSpec {
  generator: string;
  /** Domains to draw from (the generator's own default when omitted). */
  domains?: string[] | undefined;
  /** Tasks per domain. */
  count: number;
  seed: number;
  /** `train` or `heldout` requests. */
  split: "train" | "heldout";
}

/** Produces tasks for a spec; the same spec always gives the same tasks. */
export type TaskGenerator = (spec: TaskGeneratorSpec) => Task[] | Promise<Task[]>;

const generators = new Map<string, TaskGenerator>();

/** Register (or replace) the task generator `name` (`src/envs/toolworld/register.ts` adds `toolworld`). */
export function registerTaskGenerator(name: string, generate: TaskGenerator): void {
  generators.set(name, generate);
}

/** Names of the registered generators, sorted. */
export function taskGeneratorNames(): string[] {
  return [...generators.keys()].sort();
}

/** Why `name` is not a registered generator, or null when it is. */
export function unknownGeneratorMessage(name: string): string | null {
  if (generators.has(name)) return null;
  const known = taskGeneratorNames();
  return `unknown task generator ${JSON.stringify(name)} (${
    known.length > 0
      ? `known: ${known.join(", ")}`
      : "none registered: import a registration module such as src/envs/toolworld/register.ts"
  })`;
}

/** The generator `name`; INVALID_CONFIG naming the known ones when it is not registered. */
export function taskGenerator(name: string): TaskGenerator {
  const g = generators.get(name);
  if (!g) throw new EnvaceError("INVALID_CONFIG", unknownGeneratorMessage(name)!);
  return g;
}
