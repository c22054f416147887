import { describe, expect, it } from "vitest";
import {
  createToolworldEnv,
  generateTasks,
  pastAgentRun,
  PAST_AGENT_HABITS,
  toolworldResultValue,
  TOOLWORLD_DOMAINS,
  type PastAgentFlaw,
  type PastAgentHabits,
} from "../../../src/envs/toolworld/index.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";
import { failedRules } from "./rule-check.js";

for (const domain of TOOLWORLD_DOMAINS) {
  describe(`toolworld ${domain}: the past agent's logs`, () => {
    const tasks = generateTasks({
      domain,
      seed: 4,
      count: 300,
      split: "train",
      worlds: { seed: 2, count: 12 },
    });
    const rand = mulberry32(17);
    const runs = tasks.map((task) => ({ task, run: pastAgentRun(task, rand) }));

    it("hold a checkable mistake in 30-60% of traces: every flawed trace fails its checklist, no other does", () => {
      const flawed = runs.filter(({ run }) => run.flaws.length > 0);
      expect(flawed.length / runs.length).toBeGreaterThan(0.3);
      expect(flawed.length / runs.length).toBeLessThan(0.6);
      for (const { task, run } of runs) {
        const turns = run.turns.map((t) => ({ calls: t.calls.map((c) => c.call), reply: t.reply }));
        const failures = failedRules(task, turns);
        if (run.flaws.length > 0) expect(failures, `${task.id} ${JSON.stringify(run.flaws)}`).not.toEqual([]);
        else expect(failures, task.id).toEqual([]);
      }
      const kinds = new Set(flawed.map(({ run }) => run.flaws[0]!.flaw));
      expect(kinds.has("forbidden_write")).toBe(true);
      expect(kinds.has("skip_lookup")).toBe(true);
      expect(kinds.has("wrong_fact")).toBe(true);
    });

    it("keep two habits far from a coin flip and the other mistakes rare, measured where each is possible", () => {
      // Where a mistake is possible: the single-turn traces that hold it when it is the only habit,
      // at rate 1 (in a second turn a first turn's mistake pre-empts it: at most one per trace).
      const flaws = Object.keys(PAST_AGENT_HABITS) as PastAgentFlaw[];
      const rate: Record<string, number> = {};
      const single = runs.filter(({ task }) => task.user_turns.length === 1);
      for (const flaw of flaws) {
        const only = Object.fromEntries(flaws.map((f) => [f, f === flaw ? 1 : 0])) as PastAgentHabits;
        const r = mulberry32(3);
        const possible = single.filter(({ task }) => pastAgentRun(task, r, only).flaws.length > 0);
        const made = possible.filter(({ run }) => run.flaws[0]?.flaw === flaw);
        rate[flaw] = possible.length > 0 ? made.length / possible.length : 0;
        if (flaw === "forbidden_write" || flaw === "stop_early") {
          if (possible.length >= 10) expect(rate[flaw], `${flaw} (${possible.length})`).toBeGreaterThan(0.72);
        } else expect(rate[flaw], flaw).toBeLessThan(0.2);
      }
    });

    it("log the real responses to what the agent did, mistakes included", () => {
      for (const { task, run } of runs.slice(0, 100)) {
        const env = createToolworldEnv(task);
        for (const c of run.turns.flatMap((t) => t.calls)) {
          expect(toolworldResultValue(env.callSync(c.call)), task.id).toEqual(c.result);
        }
      }
    });

    it("are deterministic for a seeded random source", () => {
      const again = mulberry32(17);
      const first = runs.slice(0, 20).map(({ task }) => task);
      const a = first.map((t) => JSON.stringify(pastAgentRun(t, again).messages));
      const b = runs.slice(0, 20).map(({ run }) => JSON.stringify(run.messages));
      expect(a).toEqual(b);
    });
  });
}
