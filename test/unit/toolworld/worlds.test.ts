import { describe, expect, it } from "vitest";
import { generateTasks } from "../../../src/envs/toolworld/index.js";

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
