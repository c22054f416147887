import { EnvaceError } from "../../core/errors.js";
import { TaskZ, type Task } from "../../core/task.js";
import { goldSolve } from "./gold-solver.js";
import { planTask } from "./plan.js";
import { domainSpec } from "./registry.js";
import { createRng, seedOf } from "./rng.js";
import { buildState, type WorldDrift } from "./state.js";
import { domainTools } from "./tools.js";

export type ToolworldSplit = "train" | "heldout";

export interface GenerateOptions {
  domain: string;
  /** Base seed: the same (domain, seed, count, split) always gives the same tasks. */
  seed: number;
  count: number;
  split: ToolworldSplit;
  /**
   * Draw every task's world from a fixed pool of `count` worlds (seeded by `seed`) instead of a
   * fresh world per task: tasks of a domain then share their databases, as τ²'s tasks share one DB
   * per domain, so logs of other tasks say something about this task's entities (a rehearser can
   * learn a domain's world from them). Pass the same pool to the train and held-out generators.
   * Each task's system prompt then names its world as a tenant (`tenant: w3`, `tenantLine`), as a
   * deployed agent's prompt names the tenant it serves: the compact rehearsal prompt shows that line,
   * so a rehearser can tell which world an unseen call is in. Within a split a request may recur on
   * a world in other words (a production log repeats requests), so a few worlds still give the
   * natural mix of requests; the split itself stays by request.
   */
  worlds?: { seed: number; count: number };
  /**
   * With `worlds`: `false` draws requests as they come, repeats included (a production log repeats
   * requests; the mix of requests stays the natural one). By default no (request, world, wording)
   * repeats, which on a few worlds skews a large draw toward the rare requests (unknown ids).
   */
  unique?: boolean;
  /**
   * Every task on a newer snapshot of its world (`WorldDrift`): requests, checklists and recorded
   * calls are the drifted world's, and `env.drift` says so. The split stays by request.
   */
  drift?: WorldDrift;
}

/** The tenant a pool world is served as, by its index in the pool: `w1`, `w2`, … */
export function tenantOf(index: number): string {
  return `w${index + 1}`;
}

/** The system prompt line that names a task's tenant (the compact rehearsal prompt shows it). */
export function tenantLine(index: number): string {
  return `tenant: ${tenantOf(index)}`;
}

/** Most worlds a pool may hold: their tenant names are whole tokens of the vocabulary. */
export const MAX_WORLDS = 40;

const MAX_ATTEMPTS = 500;

/**
 * Which split a request belongs to, from its signature (intent and entities) alone: a request is
 * train or held-out for every seed, so the two splits never share a task.
 */
export function splitOfSignature(signature: string): ToolworldSplit {
  return seedOf("split", signature) % 4 === 0 ? "heldout" : "train";
}

/** The state seed of pool world `draw mod count`. */
export function worldSeed(domain: string, worlds: { seed: number; count: number }, draw: number): number {
  if (!Number.isInteger(worlds.count) || worlds.count < 1 || worlds.count > MAX_WORLDS) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `worlds.count must be an integer in [1, ${MAX_WORLDS}], got ${worlds.count}`,
    );
  }
  return seedOf(domain, "world", worlds.seed, draw % worlds.count);
}

/** Seeded tasks of one domain; each carries its gold run's calls as `examples`. */
export function generateTasks(opts: GenerateOptions): Task[] {
  const d = domainSpec(opts.domain);
  if (!Number.isInteger(opts.count) || opts.count < 0) {
    throw new EnvaceError("INVALID_CONFIG", `count must be a non-negative integer, got ${opts.count}`);
  }
  const tools = domainTools(d);
  const seen = new Set<string>();
  const tasks: Task[] = [];
  for (let i = 0; i < opts.count; i++) {
    let task: Task | undefined;
    for (let attempt = 0; attempt < MAX_ATTEMPTS && !task; attempt++) {
      const draw = seedOf(d.name, opts.split, opts.seed, i, attempt);
      const stateSeed = opts.worlds ? worldSeed(d.name, opts.worlds, draw) : draw;
      const plan = planTask(d, buildState(d, stateSeed, opts.drift), createRng(seedOf("plan", draw)));
      // The split is by request alone (train and held-out never share one); within a split, a pool
      // of worlds allows the same request on a world again in other words (each is its own task).
      const key = opts.worlds
        ? `${plan?.signature}|${stateSeed}|${plan?.turns.map((t) => t.text).join("|")}`
        : plan?.signature;
      const repeatable = opts.worlds !== undefined && opts.unique === false;
      if (!plan || splitOfSignature(plan.signature) !== opts.split || (!repeatable && seen.has(key!)))
        continue;
      seen.add(key!);
      const system = opts.worlds ? `${d.system}\n${tenantLine(draw % opts.worlds.count)}` : d.system;
      const draft: Task = TaskZ.parse({
        id: `${d.name}-${opts.split}-${opts.seed}-${String(i).padStart(4, "0")}`,
        domain: d.name,
        system,
        tools: structuredClone(tools),
        user_turns: plan.turns.map((t) => t.text),
        checklists: [plan.turns.map((t) => t.standards)],
        examples: [],
        env: {
          kind: "toolworld",
          domain: d.name,
          seed: stateSeed,
          ...(opts.drift ? { drift: opts.drift } : {}),
        },
      });
      const gold = goldSolve(draft);
      task = {
        ...draft,
        examples: gold.turns.flatMap((t) =>
          t.calls.map((c) => ({ name: c.call.name, arguments: c.call.arguments, result: c.result })),
        ),
      };
    }
    if (!task)
      throw new EnvaceError(
        "INVALID_CONFIG",
        `${d.name}: could not generate task ${i} in ${MAX_ATTEMPTS} attempts`,
      );
    tasks.push(task);
  }
  return tasks;
}
