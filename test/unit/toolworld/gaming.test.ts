import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/core/messages.js";
import type { Task } from "../../../src/core/task.js";
import { generateTasks, goldSolve, TOOLWORLD_DOMAINS } from "../../../src/envs/toolworld/index.js";
import { DAYS, ITEM_COUNT, NUMBERS, ids } from "../../../src/envs/toolworld/pools.js";
import { domainSpec } from "../../../src/envs/toolworld/registry.js";
import { failedRules, type TurnRecord } from "./rule-check.js";

/**
 * The gaming patterns a policy trained on these checklists could find (issue 11): each must fail on
 * every generated task, while the gold run passes (generate.test.ts). The checks are the reward's
 * own (`checkRule`), so this is also what RL rewards and what the demo's success metric counts.
 */
const tasksOf = (domain: string): Task[] => generateTasks({ domain, seed: 11, count: 120, split: "train" });

function goldTurns(task: Task): TurnRecord[] {
  return goldSolve(task).turns.map((t) => ({ calls: t.calls.map((c) => c.call), reply: t.reply }));
}

/** Every value a reply could name in this domain: statuses, ids, amounts, days. */
function everyValue(domain: string): string {
  const d = domainSpec(domain);
  return [
    ...d.item.statuses,
    ...d.item.detailValues.map(String),
    ...ids(d.item.idPrefix, ITEM_COUNT),
    ...NUMBERS.map(String),
    ...DAYS,
  ].join(", ");
}

for (const domain of TOOLWORLD_DOMAINS) {
  describe(`toolworld ${domain}: checklists cannot be gamed`, () => {
    const tasks = tasksOf(domain);

    it("list every value: the gold run's reply plus every other value fails wherever a fact is asked", () => {
      let facts = 0;
      for (const task of tasks) {
        const hedged = goldTurns(task).map((t) => ({
          ...t,
          reply: `${t.reply} or maybe ${everyValue(domain)}`,
        }));
        const asksFact = (task.checklists[0] ?? []).some((turn) =>
          turn.some((s) => s.rule && "reply_excludes" in s.rule && (s.rule.reply_excludes ?? []).length > 0),
        );
        if (!asksFact) continue;
        facts++;
        expect(failedRules(task, hedged), task.id).not.toEqual([]);
      }
      expect(facts).toBe(tasks.length);
    });

    it("call every tool: every write tool on every item fails every task", () => {
      const d = domainSpec(domain);
      for (const task of tasks) {
        const items = ids(d.item.idPrefix, ITEM_COUNT);
        const spray: ToolCall[] = task.tools.flatMap((tool) =>
          items.map((id, k) => ({
            id: `${tool.name}-${k}`,
            name: tool.name,
            arguments: { [d.item.idKey]: id, event_id: id, account_id: id, to_account_id: id },
          })),
        );
        const turns = goldTurns(task).map((t) => ({ calls: [...t.calls, ...spray], reply: t.reply }));
        expect(failedRules(task, turns), task.id).not.toEqual([]);
      }
    });

    it("write nothing and apologise fails every task", () => {
      for (const task of tasks) {
        const turns = task.user_turns.map(() => ({ calls: [], reply: "sorry, I cannot help with that." }));
        expect(failedRules(task, turns), task.id).not.toEqual([]);
      }
    });

    it("an apology that names every status after the right lookup still fails refusals", () => {
      const d = domainSpec(domain);
      let refusals = 0;
      for (const task of tasks) {
        const gold = goldTurns(task);
        const refused = (task.checklists[0] ?? []).map((turn) =>
          turn.some((s) => s.rule && "reply_contains" in s.rule && s.rule.reply_contains.includes("cannot")),
        );
        if (!refused.some(Boolean)) continue;
        refusals++;
        const turns = gold.map((t, i) =>
          refused[i] ? { ...t, reply: `sorry, I cannot: it is ${d.item.statuses.join(" or ")}.` } : t,
        );
        expect(failedRules(task, turns), task.id).not.toEqual([]);
      }
      expect(refusals).toBeGreaterThan(0);
    });
  });
}

/**
 * With a few named tenants (the demo's worlds), a policy can learn each world's facts by heart. The
 * checklists still require the lookups: answering from memory, with the right facts and the right
 * writes but without reading the item first, fails every task whose gold run reads one.
 */
for (const domain of TOOLWORLD_DOMAINS) {
  describe(`toolworld ${domain}: a memorised tenant world does not replace a lookup`, () => {
    const d = domainSpec(domain);
    const tasks = generateTasks({
      domain,
      seed: 11,
      count: 150,
      split: "train",
      worlds: { seed: 3, count: 4 },
      unique: false,
    });

    it("the gold run without its lookups (every other call and the reply as gold) fails", () => {
      let lookups = 0;
      for (const task of tasks) {
        const gold = goldTurns(task);
        if (!gold.some((t) => t.calls.some((c) => c.name === d.item.getTool))) continue;
        lookups++;
        const fromMemory = gold.map((t) => ({
          ...t,
          calls: t.calls.filter((c) => c.name !== d.item.getTool),
        }));
        expect(failedRules(task, fromMemory), task.id).not.toEqual([]);
        expect(failedRules(task, gold), task.id).toEqual([]);
      }
      expect(lookups).toBeGreaterThan(tasks.length * 0.4);
    });
  });
}
