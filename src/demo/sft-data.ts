import type { Example, Task } from "../core/task.js";
import {
  createToolworldEnv,
  domainSpec,
  pastAgentRun,
  toolworldResultValue,
  type GoldRun,
  type PastAgentHabits,
  type PastAgentRun,
} from "../envs/toolworld/index.js";
import { goldRunSftExamples } from "../train/gold-sft.js";
import { rehearsingExample, type SftExample } from "../train/sft.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import { withToolIndex } from "./policy-view.js";
import { mulberry32 } from "../train/task-sampler.js";
import { withLoggedNote } from "./rehearsal-notes.js";
import { LENT_TASKS } from "./data.js";
import { callKey, lentCalls, tasksByWorld, worldKey, worldmates } from "./worlds.js";
import { canonicalJson } from "../core/canonical-json.js";
import type { ToolCall } from "../core/messages.js";
import { aliasMap, renameNames } from "./tool-aliases.js";
import { entityCoverage } from "./entity-coverage.js";
import { copyDrills } from "./copy-drills.js";
import type { DemoRehearsalPrompt, Pseudonyms } from "./layout.js";

/**
 * The SFT warm start's data (issues 5 and 11), from recorded traces (and, with `snapshotListings`,
 * listings from a snapshot of the worlds' data): the logs of a past agent
 * (`pastAgentRun`: correct in most traces, with realistic, checkable mistakes in the others, and
 * real responses to every call it made, mistakes included). Nobody can verify the logs without an
 * environment, so SFT trains on them as they are: acting turns of the logged runs, and rehearsing
 * turns whose targets are the logged real responses, plus one probe call per
 * task on an id of the same kind that the recorded run did not touch, answered by the environment
 * that recorded the trace (mostly "not found": the honest answer for an unseen id).
 * Act prompts carry the one-line tool index instead of the schemas (`policy-view.ts`), exactly as
 * the policy sees them in rollouts: short prompts are what makes a tiny model learn at all.
 */
export function demoSftExamples(
  tasks: readonly Task[],
  seed: number,
  opts: {
    rehearsePerTask?: number;
    lentPerTask?: number;
    noteShare?: number;
    habits?: PastAgentHabits;
    /** `withLoggedNote`'s `noise` (experiments; default 0). */
    noteNoise?: number;
    /** Share of tasks whose acting examples are renamed logs (`tool-aliases.ts`; default 0). */
    aliasShare?: number;
    /** Logs move entities to under-written ones (`entity-coverage.ts`; `DemoPlan.sftPseudonymize`). */
    coverEntities?: { forbidden: ReadonlySet<string> } & Partial<Pseudonyms>;
    /**
     * Extra acting examples drilling a value copied past a lookup (`copy-drills.ts`; default none):
     * each kind of drill in turn, over the acting examples as they stand, with its own stream.
     */
    copyDrills?: (Parameters<typeof copyDrills>[1] & { stream: number })[];
    /** Share of tasks that add one listing of their world from a data snapshot (`snapshotListing`; default 0). */
    snapshotListings?: number;
    /** Share of tasks that add one call logged in another world, answered by theirs (`tenantContrast`; default 0). */
    tenantContrasts?: number;
    /**
     * The rehearsing examples' prompt (the plan's: `compact-related` from recipe v17). The snapshot
     * listings and tenant contrasts have no conversation: the same under either.
     */
    variant: DemoRehearsalPrompt;
  },
): {
  act: SftExample[];
  rehearse: SftExample[];
  flawedTraces: number;
  /** The past agent's logged run of each task, as the examples were drawn from it. */
  logs: { task: Task; run: PastAgentRun }[];
} {
  const perTask = opts.rehearsePerTask ?? DEMO_REHEARSE_PER_TASK;
  const variant = opts.variant;
  const lentPerTask = opts.lentPerTask ?? DEMO_LENT_REHEARSE_PER_TASK;
  const byWorld = tasksByWorld(tasks);
  const noteShare = opts.noteShare ?? DEMO_NOTE_SHARE;
  const act: SftExample[] = [];
  const rehearse: SftExample[] = [];
  const rand = mulberry32(seed);
  // Its own stream, so that renaming leaves every other draw (and example) as it was.
  const aliasRand = mulberry32(seed ^ 0xa11a5);
  const aliasShare = opts.aliasShare ?? 0;
  const coverage = opts.coverEntities
    ? entityCoverage(tasks, opts.coverEntities.forbidden, opts.coverEntities)
    : undefined;
  const logs: { task: Task; run: PastAgentRun }[] = [];
  for (const task of tasks) {
    const run: PastAgentRun = pastAgentRun(task, rand, opts.habits);
    logs.push({ task, run });
    const gold = goldRunSftExamples(task, run, { roles: ["act", "rehearse"], variant });
    const withNote = task.user_turns.length === 1 && rand() < noteShare;
    const noteOpts = withNote
      ? {
          habits: opts.habits,
          lenders: worldmates(byWorld, task),
          ...(opts.noteNoise ? { noise: opts.noteNoise } : {}),
        }
      : undefined;
    const drawn = aliasShare > 0 && aliasRand() < aliasShare ? aliasMap(task.domain, aliasRand) : undefined;
    // Balanced coverage may pseudonymize any log; otherwise only renamed ones.
    const cover = coverage && (drawn || opts.coverEntities?.mode === "balanced");
    const aliases = cover ? coverage.extend(task, JSON.stringify(run.messages), drawn ?? new Map()) : drawn;
    // Renamed logs rename what was logged (prompt, calls, results, replies, tools, the note's
    // attempts), before the note's fixed wording and the index's layout are put around it.
    const rename = aliases && aliases.size > 0 ? <T>(v: T): T => renameNames(v, aliases) : undefined;
    const tools = rename && task.tools ? rename(task.tools) : task.tools;
    act.push(
      ...gold.act.map((logged) => {
        const ex = rename ? rename(logged) : logged;
        const messages = noteOpts
          ? withLoggedNote(ex.messages, task, run, rand, { ...noteOpts, ...(rename ? { rename } : {}) })
          : ex.messages;
        return { messages: withToolIndex(messages, tools), targets: ex.targets };
      }),
    );
    const candidates = [...gold.rehearse];
    const probe = probeCall(run, rand);
    if (probe) candidates.push(probeExample(task, probe, variant));
    rehearse.push(...pickRehearsals(candidates, perTask, rand));
    // The same logged calls with other tasks' logs of this world as the evidence (the run's own
    // calls left out): the answer is in no prompt, so the rehearser learns the world itself, which
    // is what it needs for calls outside a task's recorded map (issue 11's unseen-call fidelity).
    if (lentPerTask > 0) {
      const lent = { ...task, examples: lentExamples(task, runCalls(run), byWorld, rand) };
      const memory = goldRunSftExamples(lent, run, { roles: ["rehearse"], variant }).rehearse;
      if (probe) memory.push(probeExample(lent, probe, variant));
      rehearse.push(...pickRehearsals(memory, lentPerTask, rand));
    }
  }
  // Their own streams: snapshot listings and contrasts leave every logged example as it was.
  if (opts.snapshotListings)
    rehearse.push(
      ...perTaskShare(tasks, opts.snapshotListings, mulberry32(seed ^ 0x5a95), snapshotListing, byWorld),
    );
  if (opts.tenantContrasts)
    rehearse.push(
      ...perTaskShare(tasks, opts.tenantContrasts, mulberry32(seed ^ 0xc047), tenantContrast, byWorld),
    );
  // Their own stream, after every other draw: drills leave the rest of the data as it was.
  for (const drill of opts.copyDrills ?? [])
    act.push(...copyDrills(act, drill, mulberry32(seed ^ drill.stream)));
  return { act, rehearse, flawedTraces: logs.filter((l) => l.run.flaws.length > 0).length, logs };
}

/**
 * One owner's listing in `task`'s world, as a data snapshot of the world's initial state answers it,
 * with other tasks' logs of the world as the evidence (the identical call left out, as at
 * evaluation). The logs rarely list an owner (a past agent that stops early never lists; measured:
 * an evaluated list call was answered ~once in 6,000 logged rehearsals, against ~32 times for a
 * `get_*` call), so a rehearser learned no listing and copied another owner's; a team with a
 * snapshot of its database (issue 11's source of ground-truth responses) can write every one.
 */
export function snapshotListing(
  task: Task,
  byWorld: Map<string, Task[]>,
  rand: () => number,
): SftExample | undefined {
  if (task.env?.kind !== "toolworld") return undefined;
  const d = domainSpec(task.domain);
  const env = createToolworldEnv(task);
  const owners = Object.keys(env.snapshot().owners).sort();
  if (owners.length === 0) return undefined;
  const owner = owners[Math.floor(rand() * owners.length)]!;
  const call = { id: "snapshot", name: d.item.listTool, arguments: { [d.owner.idKey]: owner } };
  return snapshotRehearsal(task, call, toolworldResultValue(env.callSync(call)), byWorld, rand);
}

/** Draws of another world's logged call `tenantContrast` makes, looking for one this world answers differently. */
const CONTRAST_DRAWS = 8;

/**
 * A lookup logged in *another* world of `task`'s domain, of an entity `task`'s world also holds with
 * other facts, as `task`'s world (its data snapshot) answers it, under `task`'s tenant line with its
 * worldmates' logs as evidence (the identical call left out). Why: a call's logs mostly come from one
 * world (an entity's tasks are where it exists), so a rehearser that ignores the tenant line loses
 * little in training, and under v15 it did (`bench:rehearser-misses`, seeds 1–4: the answer changes
 * with the tenant on 5–8% of unseen calls; 39 of 98 misses are another world's or tool's answer). A
 * contrast is the same call under another tenant with another answer. Lookups only (find, list,
 * get): a snapshot answers those; a write's answer depends on what came before. Facts only, no "not
 * found" (the entity missing from this world): with those among them (60% of all), the rehearser
 * answered "not found" to entities that exist (seed 1, RESULTS.md). Undefined when `CONTRAST_DRAWS`
 * draws find none.
 */
export function tenantContrast(
  task: Task,
  byWorld: Map<string, Task[]>,
  rand: () => number,
): SftExample | undefined {
  const world = worldKey(task);
  if (task.env?.kind !== "toolworld" || world === undefined) return undefined;
  const d = domainSpec(task.domain);
  const lookups = new Set([d.owner.findTool, d.item.listTool, d.item.getTool]);
  const elsewhere = [...byWorld]
    .filter(([k, ts]) => k !== world && ts[0]?.domain === task.domain)
    .flatMap(([, ts]) => ts);
  if (elsewhere.length === 0) return undefined;
  const env = createToolworldEnv(task);
  for (let i = 0; i < CONTRAST_DRAWS; i++) {
    const lender = elsewhere[Math.floor(rand() * elsewhere.length)]!;
    const logged = lender.examples.filter((e) => lookups.has(e.name));
    if (logged.length === 0) continue;
    const e = logged[Math.floor(rand() * logged.length)]!;
    const call: ToolCall = { id: "contrast", name: e.name, arguments: e.arguments };
    const res = env.callSync(call);
    const result = toolworldResultValue(res);
    if (res.ok && canonicalJson(result) !== canonicalJson(e.result))
      return snapshotRehearsal(task, call, result, byWorld, rand);
  }
  return undefined;
}

/**
 * A rehearsing example of `call` answered by `result` (from `task`'s world's data snapshot), with
 * other tasks' logs of that world as the evidence and the identical call left out, as at evaluation.
 */
function snapshotRehearsal(
  task: Task,
  call: ToolCall,
  result: unknown,
  byWorld: Map<string, Task[]>,
  rand: () => number,
): SftExample {
  const evidence = lentExamples(task, new Set([callKey(call)]), byWorld, rand);
  return rehearsingExample({
    task: { ...task, examples: evidence },
    history: [],
    rawActMessage: renderAssistantText("", [call]),
    call,
    result,
    variant: "compact",
  });
}

/** One example each from the tasks a `share` draw picks (`make` may decline a task), in task order. */
function perTaskShare(
  tasks: readonly Task[],
  share: number,
  rand: () => number,
  make: (task: Task, byWorld: Map<string, Task[]>, rand: () => number) => SftExample | undefined,
  byWorld: Map<string, Task[]>,
): SftExample[] {
  const out: SftExample[] = [];
  for (const task of tasks) {
    if (rand() >= share) continue;
    const ex = make(task, byWorld, rand);
    if (ex) out.push(ex);
  }
  return out;
}

/** The calls a recorded run made (their keys): what lent evidence leaves out. */
function runCalls(run: GoldRun): Set<string> {
  return new Set(run.turns.flatMap((t) => t.calls.map((c) => callKey(c.call))));
}

/** Logged calls of up to `LENT_TASKS` random other tasks on `task`'s world, minus the calls in `own`. */
function lentExamples(
  task: Task,
  own: ReadonlySet<string>,
  byWorld: Map<string, Task[]>,
  rand: () => number,
): Example[] {
  const others = worldmates(byWorld, task);
  const lenders: Task[] = [];
  for (let i = 0; i < LENT_TASKS && others.length > 0; i++)
    lenders.push(others[Math.floor(rand() * others.length)]!);
  return lentCalls(lenders, own);
}

/**
 * Rehearse examples per task whose evidence is other tasks' logs of the same world (the answer in
 * no prompt), beside `DEMO_REHEARSE_PER_TASK` with the task's own recorded calls as evidence (the
 * answer-copying case RL rollouts meet).
 */
export const DEMO_LENT_REHEARSE_PER_TASK = 1;

/**
 * Share of single-turn acting examples whose system message carries a private rehearsal note, as
 * test-time rehearsal writes it: without such examples the actor never saw a note in training and
 * collapsed when one appeared (issue 11, measured: 0% with rehearsal).
 */
export const DEMO_NOTE_SHARE = 0.25;

/**
 * Rehearse examples kept per task. Copying ids is learned from acting turns, and a tiny model's SFT
 * budget is a token count: with every recorded call kept, rehearsals were ~3 of 4 examples and the
 * model never started copying in the budget (measured). One per task keeps the two roles balanced
 * in tokens and spends the budget on more distinct tasks instead.
 */
export const DEMO_REHEARSE_PER_TASK = 1;

/** `n` of the candidates, list answers (the least faithful in the probes) twice as likely. */
function pickRehearsals(candidates: SftExample[], n: number, rand: () => number): SftExample[] {
  const pool = [...candidates];
  const out: SftExample[] = [];
  while (out.length < n && pool.length > 0) {
    const w = pool.map((ex) => (/"\w+":\[/.test(ex.messages.at(-1)?.content ?? "") ? 2 : 1));
    let r = rand() * w.reduce((a, b) => a + b, 0);
    let i = 0;
    while (i < pool.length - 1 && (r -= w[i]!) > 0) i++;
    out.push(pool.splice(i, 1)[0]!);
  }
  return out;
}

function probeExample(
  task: Task,
  probe: NonNullable<ReturnType<typeof probeCall>>,
  variant: DemoRehearsalPrompt,
): SftExample {
  const env = createToolworldEnv(task);
  const result = toolworldResultValue(env.callSync(probe.call));
  return rehearsingExample({
    task,
    history: probe.history,
    rawActMessage: renderAssistantText("", [probe.call]),
    call: probe.call,
    result,
    variant,
  });
}

/** A recorded call with its id argument swapped for another id of the same prefix (e.g. o12 → o57). */
function probeCall(run: GoldRun, rand: () => number) {
  const first = run.turns[0]?.calls.find((c) =>
    Object.values(c.call.arguments).some((v) => typeof v === "string" && /^[a-z]\d+$/.test(v)),
  );
  if (!first) return undefined;
  const args = { ...first.call.arguments };
  for (const [k, v] of Object.entries(args)) {
    if (typeof v === "string" && /^[a-z]\d+$/.test(v)) {
      let other = v;
      while (other === v) other = `${v[0]}${1 + Math.floor(rand() * 40)}`;
      args[k] = other;
    }
  }
  const at = run.messages.findIndex((m) => (m.toolCalls ?? []).some((c) => c.id === first.call.id));
  return { call: { ...first.call, arguments: args }, history: run.messages.slice(0, Math.max(0, at)) };
}
