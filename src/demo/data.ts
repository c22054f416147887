import type { Task } from "../core/task.js";
import {
  generateTasks,
  TOOLWORLD_DOMAINS,
  toolworldCorpus,
  toolworldVocabulary,
  type WorldDrift,
} from "../envs/toolworld/index.js";
import { buildRehearsalPrompt } from "../rollout/rehearsal-prompt.js";
import { toolIndex } from "./policy-view.js";
import { callKey, lentCalls, worldKey } from "./worlds.js";
import { stratifiedPick } from "./stratify.js";
import {
  ENV_DOMAIN,
  ENVLESS_DOMAINS,
  HELDOUT_DOMAIN,
  TRAIN_DOMAINS,
  type DemoPlan,
  type EvalSplit,
} from "./layout.js";

export interface DemoData {
  /** Training tasks per training domain (tasks, checklists and recorded `examples`). */
  train: Record<string, Task[]>;
  /**
   * Held-out evaluation tasks, disjoint from training. Their `examples` are NOT their own recorded
   * calls (that would hand the rehearser the answers): they are other tasks' logged calls on the same
   * world (`borrowExamples`), so every rehearsal during evaluation answers calls it was not shown.
   */
  eval: Record<EvalSplit, Task[]>;
  /** The env-less evaluation tasks with their own recorded examples: only for the answers-in-prompt fidelity figure. */
  envlessWithAnswers: Task[];
  /** Every evaluation request (user turn), which no SFT example may turn a training request into. */
  evalRequests: string[];
  /** Text the tiny model's tokenizer is trained on. */
  corpus: string;
  /** Entity strings that become single tokens (worker `--vocab-extra`). */
  vocabulary: string[];
}

/**
 * Every task of a run, deterministic per seed, and the tokenizer's corpus and vocabulary.
 * Evaluation tasks come from the generator's `heldout` split (never a training request); the
 * held-out domain is never trained on.
 */
export function buildDemoData(plan: DemoPlan, seed: number): DemoData {
  const tasks = demoTasks(plan, seed);
  // The tokenizer learns from training tasks only, plus the held-out domain's tool schemas (what a
  // deployment would know of a new domain); entities are whole tokens through the vocabulary.
  const heldoutTools = tasks.eval.heldout_domain[0]?.tools ?? [];
  const trainTasks = Object.values(tasks.train).flat();
  const corpus =
    toolworldCorpus(trainTasks) +
    heldoutTools.map((t) => JSON.stringify(t)).join("\n") +
    "\n" +
    toolIndex(heldoutTools) +
    "\n" +
    chatTemplateLines(trainTasks).join("\n") +
    "\n" +
    rehearsalLines(trainTasks).join("\n") +
    "\n";
  return {
    ...tasks,
    corpus,
    vocabulary: toolworldVocabulary(TOOLWORLD_DOMAINS, { entities: plan.entityTokens !== "pieces" }),
  };
}

/**
 * A run's tasks: everything of `DemoData` but what the tokenizer is built from. With `drift`, every
 * task is on a newer snapshot of the run's worlds (the `worldDrift` experiment, `armData`).
 */
function demoTasks(
  plan: DemoPlan,
  seed: number,
  drift?: WorldDrift,
): Omit<DemoData, "corpus" | "vocabulary"> {
  const train: Record<string, Task[]> = {};
  const worlds = runWorlds(plan, seed);
  const drifted = drift ? { drift } : {};
  for (const [i, domain] of TRAIN_DOMAINS.entries()) {
    train[domain] = generateTasks({
      domain,
      seed: seed * 101 + i,
      count: plan.trainTasksPerDomain,
      split: "train",
      worlds,
      // The logs' natural mix: requests recur (with a few worlds, distinct ones run out and the
      // draw would skew toward unknown ids); evaluation tasks stay distinct.
      unique: false,
      ...drifted,
    });
  }
  const held = (domain: string, count: number, salt: number) =>
    heldoutTasks(plan, seed, domain, count, salt, drift);
  const perEnvless = envlessTasksPerDomain(plan);
  // The env-less set (where SFT and RL are compared) follows the training logs' mix of situations
  // (`stratifiedPick`), drawn from twice as many held-out tasks.
  const keyed: Record<EvalSplit, Task[]> = {
    env_domain: held(ENV_DOMAIN, plan.evalTasks, 0),
    envless: ENVLESS_DOMAINS.flatMap((d) =>
      stratifiedPick(envlessEvalPool(plan, seed, d, drift), train[d] ?? [], perEnvless),
    ),
    heldout_domain: held(HELDOUT_DOMAIN, plan.evalTasks, 9),
  };
  const evalSets: Record<EvalSplit, Task[]> = {
    env_domain: borrowExamples(keyed.env_domain, train[ENV_DOMAIN] ?? keyed.env_domain),
    envless: keyed.envless.map((t) => borrowExamples([t], train[t.domain] ?? keyed.envless)[0]!),
    heldout_domain: borrowExamples(keyed.heldout_domain, keyed.heldout_domain),
  };
  return {
    train,
    eval: evalSets,
    envlessWithAnswers: keyed.envless,
    evalRequests: [...new Set(Object.values(keyed).flatMap((ts) => ts.flatMap((t) => t.user_turns)))],
  };
}

/** The share of items whose status moved in the arms' snapshot (the `worldDrift` experiment); 0 without it. */
function worldDriftShare(plan: DemoPlan): number {
  return plan.experiments?.worldDrift ?? 0;
}

/**
 * The data a run's arms train and are evaluated on: `data` itself, or with the `worldDrift`
 * experiment every task on a newer snapshot of the run's worlds (SFT keeps `data`'s logs; the
 * tokenizer's corpus and vocabulary stay `data`'s, those the SFT checkpoint was built from).
 */
export function armData(plan: DemoPlan, seed: number, data: DemoData): DemoData {
  const share = worldDriftShare(plan);
  return share > 0 ? { ...data, ...demoTasks(plan, seed, { seed, share }) } : data;
}

/**
 * The results' note for a `worldDrift` run: every figure there, the SFT gate's included, is
 * measured on the new snapshot, so a gate NOT met measures the drift as much as SFT.
 */
export function worldDriftNote(plan: DemoPlan): string | undefined {
  const share = worldDriftShare(plan);
  if (share <= 0) return undefined;
  return (
    `worldDrift experiment (share ${share}): SFT trained on the logs' worlds; RL and every evaluation, ` +
    "the SFT gate's figures included, ran on a newer snapshot, so the gate measures the drift as much as SFT."
  );
}

/** A domain's held-out tasks of a run (never a training request; the run's worlds), `salt` per set. */
function heldoutTasks(
  plan: DemoPlan,
  seed: number,
  domain: string,
  count: number,
  salt: number,
  drift?: WorldDrift,
): Task[] {
  const worlds = runWorlds(plan, seed);
  return generateTasks({
    domain,
    seed: seed * 101 + 50 + salt,
    count,
    split: "heldout",
    worlds,
    ...(drift ? { drift } : {}),
  });
}

/**
 * Held-back logs' tasks (the SFT copy check, `copy-check.ts`): tasks of the env-less domains on the
 * run's worlds whose requests no training task and no evaluation set holds: a slice of logs a team
 * keeps out of SFT to check it, never an evaluated task.
 */
export function heldBackTasks(
  plan: DemoPlan,
  seed: number,
  data: Pick<DemoData, "train" | "evalRequests">,
): Task[] {
  const seen = new Set([
    ...data.evalRequests,
    ...Object.values(data.train).flatMap((ts) => ts.flatMap((t) => t.user_turns)),
  ]);
  const count = Math.min(HELD_BACK_TASKS, plan.trainTasksPerDomain);
  return ENVLESS_DOMAINS.flatMap((domain, i) =>
    heldoutTasks(plan, seed, domain, count, 20 + i).filter((t) => !t.user_turns.some((u) => seen.has(u))),
  );
}

/** Held-back tasks drawn per env-less domain (at most the training tasks'; before evaluation requests are removed). */
export const HELD_BACK_TASKS = 150;

/** Every domain's tasks share a small pool of worlds (its database), train and held-out alike. */
function runWorlds(plan: DemoPlan, seed: number): { seed: number; count: number } {
  return { seed: seed * 101 + 77, count: plan.worldsPerDomain };
}

/** Env-less evaluation tasks per env-less domain. */
export function envlessTasksPerDomain(plan: DemoPlan): number {
  return Math.ceil(plan.evalTasks / ENVLESS_DOMAINS.length);
}

/**
 * The held-out tasks an env-less domain's evaluation set is picked from, in the generator's order:
 * its first `envlessTasksPerDomain` are the set an unstratified draw would take (recipe v10).
 */
export function envlessEvalPool(plan: DemoPlan, seed: number, domain: string, drift?: WorldDrift): Task[] {
  const salt = 1 + ENVLESS_DOMAINS.indexOf(domain as (typeof ENVLESS_DOMAINS)[number]);
  return heldoutTasks(plan, seed, domain, EVAL_POOL_FACTOR * envlessTasksPerDomain(plan), salt, drift);
}

/** Held-out tasks drawn per env-less evaluation task, for the stratified pick to choose from. */
export const EVAL_POOL_FACTOR = 2;

/** Logged tasks lent per evaluation task (more logs: more of the world shown, longer prompts). */
export const LENT_TASKS = 3;

/**
 * Each task with `examples` taken from up to three OTHER tasks of `pool` on the same world (the
 * same domain database), leaving out any call the task's own recorded run made: the rehearser sees
 * real evidence about the domain and the world, never the evaluated task's own results.
 */
export function borrowExamples(tasks: readonly Task[], pool: readonly Task[]): Task[] {
  return tasks.map((task) => {
    const own = new Set(task.examples.map(callKey));
    const lenders = pool
      .filter((o) => o.id !== task.id && worldKey(o) === worldKey(task))
      .slice(0, LENT_TASKS);
    return { ...task, examples: lentCalls(lenders, own) };
  });
}

/**
 * Each task with examples borrowed (`borrowExamples`) from the other tasks of its own domain in
 * `tasks`: RL without the task's own recorded answers in the rehearser's prompt (the demo's
 * `rlExamples: "borrowed"` experiment).
 */
export function borrowWithinDomains(tasks: readonly Task[]): Task[] {
  const byDomain = new Map<string, Task[]>();
  for (const t of tasks) {
    const pool = byDomain.get(t.domain);
    if (pool) pool.push(t);
    else byDomain.set(t.domain, [t]);
  }
  return tasks.map((t) => borrowExamples([t], byDomain.get(t.domain)!)[0]!);
}

/**
 * Text as the worker's chat template renders it (role names, tool calls in Python's `json.dumps`
 * spacing), so that the tokenizer merges what the model actually reads and writes.
 */
function chatTemplateLines(tasks: readonly Task[]): string[] {
  const lines = ["system", "user", "assistant", "system", "user", "assistant"];
  for (const tools of new Set(tasks.map((t) => toolIndex(t.tools)))) lines.push(tools);
  for (const task of tasks) {
    for (const e of task.examples) lines.push(pyJson({ name: e.name, arguments: e.arguments }));
  }
  return lines;
}

/** The compact rehearsal prompts (system line and evidence lines) the model reads in SFT and rollouts. */
function rehearsalLines(tasks: readonly Task[]): string[] {
  const lines: string[] = [];
  for (const task of tasks) {
    for (const e of task.examples) {
      for (const m of buildRehearsalPrompt({
        task,
        history: [],
        rawActMessage: "",
        call: { id: "c", name: e.name, arguments: e.arguments },
        variant: "compact",
      })) {
        lines.push(m.content);
      }
    }
  }
  return lines;
}

/** JSON with Python's default separators (", " and ": "), as Jinja's `tojson` writes it. */
export function pyJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`)
      .join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** `n` tasks spread evenly over `tasks` (both env-less domains, not just the first). */
export function spread<T>(tasks: readonly T[], n: number): T[] {
  if (tasks.length <= n) return [...tasks];
  return Array.from({ length: n }, (_, i) => tasks[Math.floor((i * tasks.length) / n)]!);
}
