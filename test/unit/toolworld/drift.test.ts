import { describe, expect, it } from "vitest";
import { TaskZ } from "../../../src/core/task.js";
import { createToolworldEnv, domainSpec, generateTasks } from "../../../src/envs/toolworld/index.js";
import { buildState } from "../../../src/envs/toolworld/state.js";

describe("toolworld drift: a newer snapshot of a world", () => {
  const bank = domainSpec("bank");
  const seeds = Array.from({ length: 40 }, (_, i) => 1000 + i);

  it("keeps owners, items and details, and moves statuses only, always to another status", () => {
    let items = 0;
    for (const s of seeds) {
      const base = buildState(bank, s);
      const drifted = buildState(bank, s, { seed: 7, share: 1 });
      expect(drifted.owners).toEqual(base.owners);
      expect(Object.keys(drifted.items)).toEqual(Object.keys(base.items));
      for (const [id, item] of Object.entries(base.items)) {
        const d = drifted.items[id]!;
        expect({ owner: d.owner, detail: d.detail }).toEqual({ owner: item.owner, detail: item.detail });
        expect(d.status).not.toBe(item.status);
        expect(bank.item.initialStatuses).toContain(d.status);
        items++;
      }
    }
    expect(items).toBeGreaterThan(seeds.length); // every world has items, and each one moved
  });

  it("moves about `share` of the items, the same ones for the same seed, others for another", () => {
    const movedIds = (driftSeed: number, share: number) =>
      seeds.flatMap((s) => {
        const base = buildState(bank, s);
        const d = buildState(bank, s, { seed: driftSeed, share });
        return Object.keys(base.items)
          .filter((id) => d.items[id]!.status !== base.items[id]!.status)
          .map((id) => `${s}/${id}`);
      });
    const total = seeds.reduce((a, s) => a + Object.keys(buildState(bank, s).items).length, 0);
    const half = movedIds(7, 0.5);
    expect(half.length / total).toBeGreaterThan(0.3);
    expect(half.length / total).toBeLessThan(0.7);
    expect(movedIds(7, 0.5)).toEqual(half);
    expect(movedIds(8, 0.5)).not.toEqual(half);
    expect(movedIds(7, 0)).toEqual([]);
  });

  it("generates tasks on the drifted world: env.drift set, checklists and recorded calls of the new snapshot", () => {
    const worlds = { seed: 5, count: 4 };
    const opts = { domain: "bank", seed: 1, count: 120, split: "train" as const, worlds };
    const drift = { seed: 3, share: 0.5 };
    const before = generateTasks(opts);
    const after = generateTasks({ ...opts, drift });
    for (const t of after) {
      expect(t.env).toMatchObject({ kind: "toolworld", drift });
      // every recorded result is what the drifted world answers (replayed on a fresh env of the task)
      const env = createToolworldEnv(t);
      for (const e of t.examples) {
        const r = env.callSync({ id: "x", name: e.name, arguments: e.arguments });
        expect(r.ok ? JSON.parse(r.content) : { error: r.error.message }).toEqual(e.result);
      }
    }
    const recorded = (ts: typeof before) => JSON.stringify(ts.map((t) => [t.checklists, t.examples]));
    expect(recorded(after)).not.toBe(recorded(before));
  });

  it("refuses a malformed drift in a task file", () => {
    const [task] = generateTasks({ domain: "bank", seed: 1, count: 1, split: "train" });
    const withDrift = (drift: unknown) => ({ ...task!, env: { ...task!.env!, drift } });
    expect(TaskZ.safeParse(withDrift({ seed: 1, share: 0.5 })).success).toBe(true);
    expect(TaskZ.safeParse(withDrift({ seed: 1, share: 1.5 })).success).toBe(false);
    expect(TaskZ.safeParse(withDrift({ seed: 1.5, share: 0.5 })).success).toBe(false);
    expect(() => createToolworldEnv(withDrift({ seed: 1, share: -1 }) as never)).toThrow(/env.drift/);
  });
});
