import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { snapshotListing } from "../../../src/demo/sft-data.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { tasksByWorld, worldKey } from "../../../src/demo/worlds.js";
import { createToolworldEnv, domainSpec } from "../../../src/envs/toolworld/index.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";

describe("snapshot listings (SFT recipe v13)", () => {
  const data = buildDemoData(QUICK_PLAN, 2);
  const tasks = Object.values(data.train).flat();
  const byWorld = tasksByWorld(tasks);

  it("answer an owner's listing as the world's data does, with the identical call in no evidence", () => {
    const rand = mulberry32(7);
    const listed = new Map<string, Set<string>>();
    for (const task of tasks) {
      const ex = snapshotListing(task, byWorld, rand);
      expect(ex).toBeDefined();
      // The compact prompt: tenant, evidence `name {args} -> result`, then `name {args} ->`.
      const lines = ex!.messages[1]!.content.split("\n");
      const d = domainSpec(task.domain);
      const call = lines.at(-1)!;
      expect(lines[0]).toMatch(/^tenant: w\d+$/);
      expect(task.system).toContain(lines[0]);
      const m = new RegExp(`^${d.item.listTool} (\\{.*\\}) ->$`).exec(call);
      expect(m).not.toBeNull();
      const args = JSON.parse(m![1]!) as Record<string, string>;
      const owner = args[d.owner.idKey]!;
      // The target is the real environment's answer to that call on the task's world.
      const env = createToolworldEnv(task);
      expect(Object.keys(env.snapshot().owners)).toContain(owner);
      const real = env.callSync({ id: "x", name: d.item.listTool, arguments: args });
      expect(real.ok).toBe(true);
      expect(ex!.messages[2]!.content).toBe(
        `<execution_result>\n${real.ok ? real.content : ""}\n</execution_result>`,
      );
      // Evidence: other tasks' logs of the same tool, never the identical call.
      for (const line of lines.slice(1, -1)) {
        expect(line.startsWith(`${d.item.listTool} `)).toBe(true);
        expect(line.startsWith(call.slice(0, -3))).toBe(false);
      }
      const key = worldKey(task)!;
      listed.set(key, (listed.get(key) ?? new Set()).add(owner));
    }
    // Every owner of every world is listed by some task (owners are drawn uniformly).
    for (const [key, owners] of listed) {
      const world = byWorld.get(key)![0]!;
      expect([...owners].sort()).toEqual(Object.keys(createToolworldEnv(world).snapshot().owners).sort());
    }
  });

  it("the demo's SFT data adds its plan's share of them after the logs, which stay as they were", () => {
    // tenant contrasts (v16) come after the listings: off here, so that the tail is the listings
    const plan = { ...QUICK_PLAN, sftTenantContrasts: 0 };
    const withSnap = demoSftData(data, plan, 2);
    const without = demoSftData(data, { ...plan, sftSnapshotListings: 0 }, 2);
    expect(withSnap.act).toEqual(without.act);
    expect(withSnap.rehearse.slice(0, without.rehearse.length)).toEqual(without.rehearse);
    const added = withSnap.rehearse.length - without.rehearse.length;
    const share = QUICK_PLAN.sftSnapshotListings!;
    // Binomial(tasks, share): within 4 standard deviations of its mean.
    const sd = Math.sqrt(tasks.length * share * (1 - share));
    expect(Math.abs(added - tasks.length * share)).toBeLessThan(4 * sd);
    for (const ex of withSnap.rehearse.slice(without.rehearse.length)) {
      expect(ex.messages[1]!.content.split("\n").at(-1)).toMatch(/^list_\w+ \{.*\} ->$/);
    }
  });
});
