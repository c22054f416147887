import { canonicalJson } from "../core/canonical-json.js";
import type { Task } from "../core/task.js";
import type { ChatModel } from "../core/model.js";
import { tenantLines } from "../rollout/rehearsal-prompt.js";
import { createToolworldEnv, toolworldResultValue } from "../envs/toolworld/index.js";
import { probeFidelity, type RehearsalProbe, type ScoredProbe } from "./fidelity-probes.js";
import { callKey, worldKey } from "./worlds.js";
import type { DemoRehearsalPrompt } from "./layout.js";

/**
 * Why a rehearser gets an unseen call wrong (issue 11: the misses behind the rehearsed-world gap,
 * `envace` vs `simulator`, and imagined refusals the real tool does not confirm). The demo's
 * domains have several worlds (databases) whose entities share ids: `e9` may be a confirmed
 * Saturday event in one world and unknown in another, and the prompt names the world only by its
 * tenant line. A miss is then one of:
 * - `other_state`: an answer the logs show for the same call in this world, given where the state
 *   had changed (after a write: the rehearser missed the write's effect);
 * - `other_world`: the rehearser gave the answer the logs show for the same call in *another*
 *   world, never in this one (it knew the fact but not whose it was);
 * - `other_tool`: it gave the values another tool's answer to the same arguments holds, under
 *   whatever keys (seed 3: the bank's `find_customer {"email":"dora@mail"}` answered
 *   `{"customer_id":"u32"}`, the id the shop's `find_user` gives that email);
 * - `not_logged`: the logs never show this call in this world (nothing to have learned it from);
 * - `logged_but_missed`: the logs show this call's answers in this world, and the rehearser gave
 *   none of them nor another world's;
 * - `unparsed`: no JSON result could be read.
 */
export type MissKind =
  "other_state" | "other_world" | "other_tool" | "not_logged" | "logged_but_missed" | "unparsed";

/** Every answer each call got in the logs: what a rehearser could have learned. */
export interface LoggedAnswers {
  /** By call (`callKey`), then world (`worldKey`). */
  byCall: Map<string, Map<string, Set<string>>>;
  /** By arguments (canonical JSON), then tool name, over every world: the answers' leaf values (`leafValues`). */
  byArgs: Map<string, Map<string, Set<string>>>;
}

function addTo(index: Map<string, Map<string, Set<string>>>, key: string, sub: string, answer: string) {
  const inner = index.get(key) ?? new Map<string, Set<string>>();
  index.set(key, inner);
  const answers = inner.get(sub) ?? new Set<string>();
  inner.set(sub, answers);
  answers.add(answer);
}

/** A value's leaves (strings, numbers…) without their keys, in order: what two answers share under other names. */
export function leafValues(value: unknown): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
    else out.push(JSON.stringify(v));
  };
  walk(value);
  return out.join(",");
}

/** The logs' answers (tasks' recorded `examples`) of the tasks on a toolworld. */
export function loggedAnswers(logs: readonly Task[]): LoggedAnswers {
  const out: LoggedAnswers = { byCall: new Map(), byArgs: new Map() };
  for (const t of logs) {
    const world = worldKey(t);
    if (world === undefined) continue;
    for (const e of t.examples) {
      const answer = canonicalJson(e.result);
      addTo(out.byCall, callKey(e), world, answer);
      addTo(out.byArgs, canonicalJson(e.arguments), e.name, leafValues(e.result));
    }
  }
  return out;
}

/** One missed probe: the world and call rehearsed, what the rehearser said (undefined: unparsed), the real answer. */
export interface Miss {
  world: string;
  call: { name: string; arguments: Record<string, unknown> };
  rehearsed: unknown;
  real: unknown;
}

/** The probes a rehearser got wrong (not exact), as misses; probes outside any toolworld are left out. */
export function missesOf(scored: readonly ScoredProbe[]): Miss[] {
  return scored.flatMap(({ score, probe, rehearsed }) => {
    const world = worldKey(probe.task);
    return score.exact || world === undefined
      ? []
      : [{ world, call: probe.call, rehearsed, real: probe.real }];
  });
}

export function classifyMiss(miss: Miss, logs: LoggedAnswers): MissKind {
  if (miss.rehearsed === undefined) return "unparsed";
  const said = canonicalJson(miss.rehearsed);
  const byWorld = logs.byCall.get(callKey(miss.call));
  const here = byWorld?.get(miss.world);
  if (here?.has(said)) return "other_state";
  const elsewhere = [...(byWorld ?? [])].some(([w, answers]) => w !== miss.world && answers.has(said));
  if (elsewhere) return "other_world";
  const byTool = logs.byArgs.get(canonicalJson(miss.call.arguments));
  const otherTool = [...(byTool ?? [])].some(
    ([tool, answers]) => tool !== miss.call.name && answers.has(leafValues(miss.rehearsed)),
  );
  if (otherTool) return "other_tool";
  return here ? "logged_but_missed" : "not_logged";
}

export interface MissReport {
  probes: number;
  misses: number;
  by_kind: Record<MissKind, number>;
  /** Misses per tool, by kind. */
  by_tool: Record<string, Partial<Record<MissKind, number>>>;
  /** The first few misses of each kind, to read. */
  examples: Partial<Record<MissKind, Miss[]>>;
}

/** Misses kept per kind in `MissReport.examples`. */
export const MISS_EXAMPLES = 3;

export function missReport(probes: number, misses: readonly Miss[], logs: LoggedAnswers): MissReport {
  const byKind: Record<MissKind, number> = {
    other_state: 0,
    other_world: 0,
    other_tool: 0,
    not_logged: 0,
    logged_but_missed: 0,
    unparsed: 0,
  };
  const byTool: MissReport["by_tool"] = {};
  const examples: MissReport["examples"] = {};
  for (const m of misses) {
    const kind = classifyMiss(m, logs);
    byKind[kind] += 1;
    const shown = (examples[kind] ??= []);
    if (shown.length < MISS_EXAMPLES) shown.push(m);
    const tool = (byTool[m.call.name] ??= {});
    tool[kind] = (tool[kind] ?? 0) + 1;
  }
  return { probes, misses: misses.length, by_kind: byKind, by_tool: byTool, examples };
}

/** The tenant lines the tasks' system prompts name, per domain (sorted). */
export function domainTenants(tasks: readonly Task[]): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const t of tasks)
    for (const l of tenantLines(t.system)) out.set(t.domain, (out.get(t.domain) ?? new Set()).add(l));
  return new Map([...out].map(([d, ls]) => [d, [...ls].sort()]));
}

/** The probe as it would be rehearsed for a task that names `tenantLine` as its world. */
export function withTenant(p: RehearsalProbe, tenantLine: string): RehearsalProbe {
  return { ...p, task: { ...p.task, system: p.task.system.replace(/^tenant: \S+$/m, tenantLine) } };
}

/**
 * Does the rehearser read the tenant line? Each scored probe is rehearsed again under every other
 * tenant of its domain (evidence and call unchanged; its own tenant's answer is the one scored);
 * `changed` counts the probes whose answer differs between tenants. A rehearser that reads the world
 * from the tenant line changes its answer wherever the worlds differ; one that ignores it never does.
 */
export async function tenantSensitivity(
  policy: ChatModel,
  scored: readonly ScoredProbe[],
  tenants: ReadonlyMap<string, readonly string[]>,
  concurrency: number,
  variant: DemoRehearsalPrompt,
): Promise<{ probes: number; changed: number }> {
  const answer = (s: Pick<ScoredProbe, "rehearsed">) =>
    s.rehearsed === undefined ? "" : canonicalJson(s.rehearsed);
  const answers = scored.map((s) => new Set([answer(s)]));
  const swapped = scored.flatMap(({ probe }, i) => {
    const own = tenantLines(probe.task.system);
    return (tenants.get(probe.task.domain) ?? [])
      .filter((line) => !own.includes(line))
      .map((line) => ({ i, probe: withTenant(probe, line) }));
  });
  const index = new Map(swapped.map((s) => [s.probe, s.i]));
  const rescored = await probeFidelity(
    policy,
    swapped.map((s) => s.probe),
    { max: swapped.length, concurrency, variant },
  );
  for (const s of rescored) answers[index.get(s.probe)!]!.add(answer(s));
  return { probes: scored.length, changed: answers.filter((a) => a.size > 1).length };
}

/**
 * How many of the probes a rehearser *should* answer differently per tenant: the call, made on the
 * initial data of each world of its domain (one task per world stands for it), gets more than one
 * answer. The yardstick for `tenantSensitivity`.
 */
export function worldDependent(probes: readonly RehearsalProbe[], logs: readonly Task[]): number {
  const firstOfWorld = new Map<string, Task>();
  for (const t of logs) {
    const w = worldKey(t);
    if (w !== undefined && !firstOfWorld.has(w)) firstOfWorld.set(w, t);
  }
  return probes.filter((p) => {
    const answers = new Set<string>();
    for (const t of firstOfWorld.values()) {
      if (t.domain !== p.task.domain) continue;
      answers.add(canonicalJson(toolworldResultValue(createToolworldEnv(t).callSync(p.call))));
    }
    return answers.size > 1;
  }).length;
}
