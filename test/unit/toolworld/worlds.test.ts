import { describe, expect, it } from "vitest";
import { generateTasks, toolworldVocabulary } from "../../../src/envs/toolworld/index.js";

describe("toolworld: tasks on a shared pool of worlds", () => {
  const worlds = { seed: 5, count: 4 };
  const train = generateTasks({ domain: "bank", seed: 1, count: 80, split: "train", worlds });
  const held = generateTasks({ domain: "bank", seed: 2, count: 40, split: "heldout", worlds });
  const seedOf = (t: { env?: unknown }) => (t.env as { seed: number }).seed;

  it("draw every world from the pool, train and held-out alike, with no request repeated on one world", () => {
    const trainWorlds = new Set(train.map(seedOf));
    expect(trainWorlds.size).toBe(4);
    for (const t of held) expect(trainWorlds.has(seedOf(t))).toBe(true);
    const key = (t: (typeof train)[number]) => `${t.user_turns.join("|")}@${seedOf(t)}`;
    expect(new Set(train.map(key)).size).toBe(train.length);
  });

  it("name each task's world as a tenant in its system prompt: one tenant per world, a vocabulary token", () => {
    const tenantOfTask = (t: { system: string }) => /\ntenant: (w\d+)$/.exec(t.system)?.[1];
    const byWorld = new Map<number, Set<string | undefined>>();
    for (const t of [...train, ...held]) {
      byWorld.set(seedOf(t), (byWorld.get(seedOf(t)) ?? new Set()).add(tenantOfTask(t)));
    }
    expect(byWorld.size).toBe(4);
    for (const tenants of byWorld.values()) expect(tenants.size).toBe(1);
    const names = [...byWorld.values()].map((s) => [...s][0]);
    expect(new Set(names)).toEqual(new Set(["w1", "w2", "w3", "w4"]));
    const vocab = new Set(toolworldVocabulary());
    for (const n of names) expect(vocab.has(n!)).toBe(true);
    // the tenant line follows the domain's own prompt, which stays as it was
    expect(train[0]!.system.startsWith("bank agent.")).toBe(true);
  });

  it("with unique: false, draw requests as they come: repeats, and the natural mix of requests", () => {
    const count = 600;
    const few = { seed: 5, count: 2 };
    const natural = generateTasks({
      domain: "calendar",
      seed: 1,
      count,
      split: "train",
      worlds: few,
      unique: false,
    });
    const distinct = generateTasks({ domain: "calendar", seed: 1, count: 500, split: "train", worlds: few });
    const key = (t: (typeof natural)[number]) => `${t.user_turns.join("|")}@${seedOf(t)}`;
    expect(new Set(natural.map(key)).size).toBeLessThan(count);
    // Unknown-id requests (10-15% of draws) do not crowd out the rest as distinct ones run out.
    const notFound = (ts: typeof natural) =>
      ts.filter((t) => JSON.stringify(t.examples).includes("not found")).length / ts.length;
    expect(notFound(natural)).toBeLessThan(0.2);
    expect(notFound(distinct)).toBeGreaterThan(notFound(natural) + 0.1);
  });

  it("without a pool, every task has its own world", () => {
    const own = generateTasks({ domain: "bank", seed: 1, count: 40, split: "train" });
    expect(new Set(own.map(seedOf)).size).toBe(40);
  });

  it("refuses an empty pool", () => {
    expect(() =>
      generateTasks({ domain: "bank", seed: 1, count: 1, split: "train", worlds: { seed: 1, count: 0 } }),
    ).toThrow(/worlds.count/);
  });
});
