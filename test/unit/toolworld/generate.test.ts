import { describe, expect, it } from "vitest";
import { TaskZ, type Task } from "../../../src/core/task.js";
import {
  createToolworldEnv,
  generateTasks,
  goldSolve,
  splitOfSignature,
  TOOLWORLD_DOMAINS,
  toolworldCorpus,
  toolworldResultValue,
  toolworldVocabulary,
} from "../../../src/envs/toolworld/index.js";
import { failedRules, wordTokens, type TurnRecord } from "./rule-check.js";

const COUNT = 120;
const tasksOf = new Map<string, { train: Task[]; heldout: Task[] }>();
for (const domain of TOOLWORLD_DOMAINS) {
  tasksOf.set(domain, {
    train: generateTasks({ domain, seed: 3, count: COUNT, split: "train" }),
    heldout: generateTasks({ domain, seed: 3, count: COUNT / 2, split: "heldout" }),
  });
}
const all = (domain: string): Task[] => {
  const t = tasksOf.get(domain);
  return t ? [...t.train, ...t.heldout] : [];
};
const WRITES = new Set([
  "cancel_order",
  "return_order",
  "freeze_account",
  "transfer",
  "cancel_event",
  "move_event",
  "renew_loan",
  "return_loan",
]);
const needsWrite = (t: Task) =>
  t.checklists.some((c) =>
    c.some((turn) => turn.some((s) => s.rule && "call" in s.rule && WRITES.has(s.rule.call))),
  );

for (const domain of TOOLWORLD_DOMAINS) {
  describe(`toolworld ${domain}: generated tasks`, () => {
    it("are valid tasks with a toolworld env, 1-2 user turns and rule-only checklists", () => {
      for (const task of all(domain)) {
        expect(TaskZ.parse(task)).toEqual(task);
        expect(task.env).toMatchObject({ kind: "toolworld", domain });
        expect(task.user_turns.length).toBeGreaterThanOrEqual(1);
        expect(task.user_turns.length).toBeLessThanOrEqual(2);
        expect(task.checklists[0]?.length).toBe(task.user_turns.length);
        for (const turn of task.checklists[0] ?? []) for (const s of turn) expect(s.rule).toBeDefined();
      }
    });

    it("mix writes, refusals, lookups and two-turn tasks", () => {
      const tasks = tasksOf.get(domain)?.train ?? [];
      const forbidsWithoutCall = (t: Task) =>
        (t.checklists[0] ?? []).some((turn) =>
          turn.some((s) => s.rule && "reply_contains" in s.rule && s.rule.reply_contains.includes("cannot")),
        );
      expect(tasks.filter(needsWrite).length).toBeGreaterThan(COUNT * 0.2);
      expect(tasks.filter(forbidsWithoutCall).length).toBeGreaterThan(COUNT * 0.1);
      expect(tasks.filter((t) => t.user_turns.length === 2).length).toBeGreaterThan(COUNT * 0.08);
      expect(tasks.filter((t) => t.examples.some((e) => e.name.startsWith("find_"))).length).toBeGreaterThan(
        COUNT * 0.08,
      );
    });

    it("the gold solver meets every checklist rule, and its examples are its real calls", () => {
      for (const task of all(domain)) {
        const gold = goldSolve(task);
        const turns: TurnRecord[] = gold.turns.map((t) => ({
          calls: t.calls.map((c) => c.call),
          reply: t.reply,
        }));
        expect(failedRules(task, turns), task.id).toEqual([]);
        const calls = gold.turns.flatMap((t) => t.calls);
        expect(task.examples).toEqual(
          calls.map((c) => ({ name: c.call.name, arguments: c.call.arguments, result: c.result })),
        );
        // A run without a successful write leaves the world as it was.
        const wrote = calls.some((c) => c.ok && WRITES.has(c.call.name));
        expect(gold.env.hash() === createToolworldEnv(task).hash()).toBe(!wrote);
      }
    });

    it("replaying the gold calls in a fresh environment gives the same results and final state", async () => {
      for (const task of all(domain)) {
        const gold = goldSolve(task);
        const env = createToolworldEnv(task);
        for (const e of task.examples) {
          const r = await env.call({ id: "replay", name: e.name, arguments: e.arguments });
          expect(toolworldResultValue(r)).toEqual(e.result);
        }
        expect(env.hash()).toBe(gold.env.hash());
      }
    });

    it("inaction fails every task: a noop or a blanket refusal without tool calls scores nothing", () => {
      for (const task of all(domain)) {
        for (const reply of ["ok.", "sorry, I cannot do that: not found."]) {
          const turns: TurnRecord[] = task.user_turns.map(() => ({ calls: [], reply }));
          expect(failedRules(task, turns).length, `${task.id} / ${reply}`).toBeGreaterThan(0);
        }
      }
    });

    it("no write is free: in every turn each write tool is either required or forbidden", () => {
      for (const task of all(domain)) {
        const writes = task.tools.map((t) => t.name).filter((n) => WRITES.has(n));
        for (const turn of task.checklists[0] ?? []) {
          for (const w of writes) {
            const covered = turn.some(
              (s) =>
                s.rule &&
                (("call" in s.rule && s.rule.call === w) || ("forbid" in s.rule && s.rule.forbid === w)),
            );
            expect(covered, `${task.id}: ${w}`).toBe(true);
          }
        }
      }
    });

    it("is deterministic per seed and differs across seeds", () => {
      const a = generateTasks({ domain, seed: 11, count: 20, split: "train" });
      const b = generateTasks({ domain, seed: 11, count: 20, split: "train" });
      const c = generateTasks({ domain, seed: 12, count: 20, split: "train" });
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      expect(JSON.stringify(a)).not.toBe(JSON.stringify(c));
      expect(new Set(a.map((t) => t.id)).size).toBe(20);
    });

    it("train and held-out splits are disjoint, across seeds too", () => {
      const key = (t: Task) => JSON.stringify(t.user_turns);
      const train = new Set([
        ...(tasksOf.get(domain)?.train ?? []).map(key),
        ...generateTasks({ domain, seed: 99, count: 60, split: "train" }).map(key),
      ]);
      const heldout = [
        ...(tasksOf.get(domain)?.heldout ?? []),
        ...generateTasks({ domain, seed: 98, count: 30, split: "heldout" }),
      ];
      for (const t of heldout) expect(train.has(key(t)), t.id).toBe(false);
      const seeds = (ts: Task[]) => new Set(ts.map((t) => (t.env as unknown as { seed: number }).seed));
      const trainSeeds = seeds(tasksOf.get(domain)?.train ?? []);
      for (const s of seeds(heldout)) expect(trainSeeds.has(s)).toBe(false);
    });
  });
}

describe("toolworld split assignment", () => {
  it("sends about a quarter of request signatures to held-out", () => {
    const sigs = Array.from({ length: 2000 }, (_, i) => `shop|status({"id":"o${i}"})`);
    const held = sigs.filter((s) => splitOfSignature(s) === "heldout").length;
    expect(held).toBeGreaterThan(400);
    expect(held).toBeLessThan(600);
  });
});

describe("toolworld vocabulary and corpus", () => {
  const vocab = new Set(toolworldVocabulary());
  const everything = TOOLWORLD_DOMAINS.flatMap(all);

  it("contains every entity that appears in tasks, examples and gold replies", () => {
    const entity = /^([a-z]\d+|[a-z]+@mail|[A-Z][a-z]+|\d+|[a-z]+day)$/;
    const seen = new Set<string>();
    const collect = (v: unknown): void => {
      if (typeof v === "string" || typeof v === "number") seen.add(String(v));
      else if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === "object") Object.entries(v).forEach(([k, x]) => (seen.add(k), collect(x)));
    };
    for (const task of everything) {
      task.examples.forEach((e) => (seen.add(e.name), collect(e.arguments), collect(e.result)));
      for (const text of [...task.user_turns, ...goldSolve(task).turns.map((t) => t.reply)]) {
        for (const w of text.match(/[A-Za-z0-9_@]+/g) ?? []) if (entity.test(w) && w !== "I") seen.add(w);
      }
    }
    const missing = [...seen].filter((s) => !vocab.has(s) && !s.includes(" "));
    expect(missing).toEqual([]);
  });

  it("no vocabulary token hides inside another word of the corpus (added tokens match anywhere)", () => {
    const words = new Set(toolworldCorpus(everything).match(/[A-Za-z0-9_@]+/g) ?? []);
    const tokens = [...vocab].filter((v) => /[a-z]/i.test(v));
    const clashes: string[] = [];
    for (const w of words) {
      if (vocab.has(w)) continue;
      for (const t of tokens) if (w.includes(t)) clashes.push(`${t} in ${w}`);
    }
    expect(clashes).toEqual([]);
  });

  it("has the closed pools of every domain, held-out included", () => {
    expect(vocab.has("o80")).toBe(true);
    expect(vocab.has("l80")).toBe(true);
    expect(vocab.has("kim@mail")).toBe(true);
    expect(vocab.has("Kim")).toBe(true);
    expect(vocab.has("friday")).toBe(true);
    expect(vocab.has("300")).toBe(true);
    expect(toolworldVocabulary(["shop"]).includes("l80")).toBe(false);
  });

  it("leaves entities to the tokenizer when asked, and no kept token hides inside an entity", () => {
    const pieces = new Set(toolworldVocabulary(TOOLWORLD_DOMAINS, { entities: false }));
    for (const entity of ["o80", "l80", "c7", "kim@mail", "Kim"]) expect(pieces.has(entity)).toBe(false);
    for (const kept of ["friday", "300", "get_order", "order_id", "shipped", "status"])
      expect(pieces.has(kept)).toBe(true);
    const entities = [...vocab].filter((t) => !pieces.has(t));
    expect(entities.length).toBeGreaterThan(400);
    // An added token matches anywhere: one inside an entity would cut it in two odd pieces.
    const words = [...pieces].filter((t) => /[a-z]/i.test(t));
    expect(entities.flatMap((e) => words.filter((w) => e.includes(w)).map((w) => `${w} in ${e}`))).toEqual(
      [],
    );
  });

  it("builds a corpus with the gold trajectories", () => {
    const task = everything[0] as Task;
    const text = toolworldCorpus([task]);
    expect(text).toContain(task.user_turns[0]);
    expect(text).toContain(goldSolve(task).turns[0]?.reply);
    expect(text).toContain("<tool_call>");
  });

  it("keeps act and rehearse sequences short in word-level tokens", () => {
    let maxAct = 0;
    let maxRehearse = 0;
    for (const task of everything) {
      const gold = goldSolve(task);
      const evidence = task.examples
        .map((e) => `${e.name} ${JSON.stringify(e.arguments)} ${JSON.stringify(e.result)}`)
        .join("\n");
      let history = "";
      for (const turn of gold.turns) {
        history += `${turn.user}\n`;
        for (const c of turn.calls) {
          const callText = `${c.call.name} ${JSON.stringify(c.call.arguments)}`;
          maxAct = Math.max(maxAct, wordTokens(history + callText));
          maxRehearse = Math.max(
            maxRehearse,
            wordTokens(`${evidence}\n${callText}\n${JSON.stringify(c.result)}`),
          );
          history += `${callText}\n${JSON.stringify(c.result)}\n`;
        }
        maxAct = Math.max(maxAct, wordTokens(history + turn.reply));
        history += `${turn.reply}\n`;
      }
    }
    expect(maxAct).toBeLessThanOrEqual(110);
    expect(maxRehearse).toBeLessThanOrEqual(110);
  });
});
