import type { Message } from "../../core/messages.js";
import type { Rule, Task } from "../../core/task.js";
import { createToolworldEnv } from "./environment.js";
import { goldSolve, parseUserTurn, turnRecorder, type GoldRun, type GoldTurn } from "./gold-solver.js";
import { domainSpec } from "./registry.js";
import { writeToolNames } from "./tools.js";
import type { DomainSpec, SolverContext } from "./types.js";

/**
 * The mistakes a past agent made in the logs a team has (issue 11). Each is checkable by the task's
 * checklist, so RL from checklists can remove it:
 * - `skip_lookup`: writes without reading the item first (it guessed the status);
 * - `forbidden_write`: read a status the policy forbids acting on, and tried the write anyway;
 * - `similar_id`: handled a similar entity (another item of the same world) instead of the one asked;
 * - `wrong_fact`: told the user a wrong value;
 * - `stop_early`: stopped after the first call and replied without the answer.
 */
export type PastAgentFlaw = "skip_lookup" | "forbidden_write" | "similar_id" | "wrong_fact" | "stop_early";

/** How often the past agent makes each mistake where it can (the probability per eligible turn). */
export type PastAgentHabits = Record<PastAgentFlaw, number>;

/**
 * Habits, not noise: a mistake made in most of the situations where it is possible is what a model
 * imitating the logs reproduces under greedy decoding (a rare random slip it would average away);
 * a mistake made in some but not all of them leaves correct samples for RL to reinforce. The rates
 * sit far from 1/2 on purpose: at 0.55–0.7 (issue 11, measured) whether greedy decoding kept a
 * habit flipped with the seed, and SFT success with it (34–66% over three seeds). Two habits are
 * kept (refusing, listing: ~45% of the env-less tasks), the other mistakes are rare slips.
 */
export const PAST_AGENT_HABITS: PastAgentHabits = {
  forbidden_write: 0.85,
  stop_early: 0.85,
  skip_lookup: 0.1,
  wrong_fact: 0.06,
  similar_id: 0.04,
};

export interface PastAgentRun extends GoldRun {
  /** The mistakes in this trace, by user turn (empty when the trace is correct). */
  flaws: { turn: number; flaw: PastAgentFlaw }[];
}

/** One turn's planned deviation: the calls to make (executed for real) and the reply to give. */
interface Deviation {
  flaw: PastAgentFlaw;
  run(ctx: SolverContext): string;
}

/**
 * The past agent's logged run of `task`: at most one mistake per trace, chosen by `habits` from the
 * mistakes the turn allows; every call is executed in the task's real environment, so the logged
 * results are the real responses to what it did (also to its mistakes). A mistake in turn 1 leaves
 * turn 2 to the ordinary solver, which reads the world as the mistake left it.
 */
export function pastAgentRun(
  task: Task,
  rand: () => number,
  habits: PastAgentHabits = PAST_AGENT_HABITS,
): PastAgentRun {
  const gold = goldSolve(task);
  const env = createToolworldEnv(task);
  const d = domainSpec(env.domain);
  const messages: Message[] = task.system ? [{ role: "system", content: task.system }] : [];
  const turns: GoldTurn[] = [];
  const flaws: PastAgentRun["flaws"] = [];
  const known = new Map<string, string>();
  let lastId: string | undefined;
  task.user_turns.forEach((user, t) => {
    const { ctx, calls, messages: turnMessages } = turnRecorder(env, t, user, known, lastId);
    const { intent, slots } = parseUserTurn(d, user);
    const deviation = flaws.length === 0 ? chooseDeviation(task, d, gold.turns[t], t, rand, habits) : null;
    let reply: string;
    if (deviation) {
      reply = deviation.run(ctx);
      flaws.push({ turn: t, flaw: deviation.flaw });
    } else reply = intent.solve(slots, ctx);
    if (slots.id !== undefined) lastId = slots.id;
    turnMessages.push({ role: "assistant", content: reply });
    messages.push(...turnMessages);
    turns.push({ user, messages: turnMessages, calls, reply });
  });
  return { messages, turns, env, flaws };
}

/** The mistakes this gold turn allows, each drawn with its habit's probability; the first drawn wins. */
function chooseDeviation(
  task: Task,
  d: DomainSpec,
  goldTurn: GoldTurn | undefined,
  t: number,
  rand: () => number,
  habits: PastAgentHabits,
): Deviation | null {
  if (!goldTurn) return null;
  const writes = new Set(writeToolNames(d));
  const calls = goldTurn.calls;
  const rules = (task.checklists[0]?.[t] ?? []).flatMap((s) => (s.rule ? [s.rule] : []));
  const options: Deviation[] = [];
  const first = calls[0];
  const last = calls.at(-1);

  // Read then write: write straight away (the logged reply is what the write's result allows).
  if (calls.length >= 2 && first?.call.name === d.item.getTool && last && writes.has(last.call.name)) {
    const write = last.call;
    options.push({
      flaw: "skip_lookup",
      run: (ctx) => {
        const w = ctx.call(write.name, write.arguments);
        return w.ok ? goldTurn.reply : `sorry, I cannot do that: ${w.error}.`;
      },
    });
  }

  // A refusal: the forbidden write is tried anyway after the read; the env refuses it.
  const forbidden = rules.flatMap((r) =>
    "forbid" in r && !r.args && writes.has(r.forbid) ? [r.forbid] : [],
  );
  const intentTool = intentWrite(d, goldTurn.user);
  if (intentTool && forbidden.includes(intentTool.name) && calls.every((c) => c.ok)) {
    options.push({
      flaw: "forbidden_write",
      run: (ctx) => {
        for (const c of calls) ctx.call(c.call.name, c.call.arguments);
        const args = intentTool.args(ctx.lastId);
        ctx.call(intentTool.name, args);
        return goldTurn.reply;
      },
    });
  }

  // A list request: stops after finding the owner, without the list.
  if (calls.length >= 2 && first?.call.name === d.owner.findTool) {
    options.push({
      flaw: "stop_early",
      run: (ctx) => {
        ctx.call(first.call.name, first.call.arguments);
        return "let me know if there is anything else.";
      },
    });
  }

  // States a wrong value: the fact of the reply swapped for a contradicting one.
  const fact = rules.find(
    (r): r is Extract<Rule, { reply_contains: string[] }> =>
      "reply_contains" in r && (r.reply_excludes ?? []).length > 0,
  );
  const stated = fact?.reply_contains.find((s) => s !== "cannot" && goldTurn.reply.includes(s));
  if (fact && stated) {
    options.push({
      flaw: "wrong_fact",
      run: (ctx) => {
        for (const c of calls) ctx.call(c.call.name, c.call.arguments);
        const alternatives = fact.reply_excludes ?? [];
        const other = alternatives[Math.floor(rand() * alternatives.length)] ?? stated;
        return replaceWord(goldTurn.reply, stated, other);
      },
    });
  }

  // Handles a similar entity: the same request on another item of this world.
  const itemArg = first && typeof first.call.arguments[d.item.idKey] === "string";
  if (first && itemArg) {
    const asked = String(first.call.arguments[d.item.idKey]);
    options.push({
      flaw: "similar_id",
      run: (ctx) => {
        const world = createToolworldEnv(task).snapshot();
        const others = Object.keys(world.items)
          .sort()
          .filter((i) => i !== asked);
        const other = others[Math.floor(rand() * others.length)] ?? asked;
        const { intent, slots } = parseUserTurn(d, goldTurn.user);
        return intent.solve({ ...slots, id: other }, { ...ctx, lastId: other });
      },
    });
  }

  for (const option of options) if (rand() < habits[option.flaw]) return option;
  return null;
}

/** The write a user turn asks for, with its arguments built from the turn's slots. */
function intentWrite(
  d: DomainSpec,
  user: string,
): { name: string; args: (lastId: string | undefined) => Record<string, unknown> } | undefined {
  const { intent, slots } = parseUserTurn(d, user);
  const tool = intent.kind.includes(":") ? intent.kind.split(":")[1] : undefined;
  const name =
    tool && writeToolNames(d).includes(tool)
      ? tool
      : d.specials.find((s) => intent.kind === `special:${s.name}`)?.tool.name;
  if (!name) return undefined;
  const schema = [...d.actions.map((a) => a.tool)].includes(name)
    ? [d.item.idKey]
    : Object.keys(
        (d.specials.find((s) => s.tool.name === name)?.tool.parameters.properties ?? {}) as Record<
          string,
          unknown
        >,
      );
  return {
    name,
    args: (lastId) =>
      Object.fromEntries(
        schema.map((p) => {
          if (p === d.item.idKey) return [p, slots.id ?? lastId ?? ""];
          if (p === "to_account_id") return [p, slots.to ?? ""];
          if (p === "amount") return [p, Number(slots.amount)];
          return [p, slots[p] ?? ""];
        }),
      ),
  };
}

/** `text` with the first whole-word occurrence of `word` replaced (not "40" inside "a40"). */
function replaceWord(text: string, word: string, by: string): string {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<![A-Za-z0-9_])${escaped}(?![A-Za-z0-9_])`), by);
}
