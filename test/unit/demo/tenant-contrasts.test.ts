import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/canonical-json.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { FULL_PLAN } from "../../../src/demo/layout.js";
import { tenantContrast } from "../../../src/demo/sft-data.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { tasksByWorld, worldKey } from "../../../src/demo/worlds.js";
import { createToolworldEnv, domainSpec, toolworldResultValue } from "../../../src/envs/toolworld/index.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";

describe("tenant contrasts (plan sftTenantContrasts, recipe v16)", () => {
  // the full plan: four worlds per domain, where entities shared by two worlds are common enough
  const data = buildDemoData(FULL_PLAN, 1);
  const tasks = Object.values(data.train).flat();
  const byWorld = tasksByWorld(tasks);
  /** Every answer each call got in the logs, per world. */
  const logged = new Map<string, Map<string, Set<string>>>();
  for (const t of tasks)
    for (const e of t.examples) {
      const k = `${e.name} ${canonicalJson(e.arguments)}`;
      const m = logged.get(k) ?? new Map<string, Set<string>>();
      logged.set(k, m);
      m.set(worldKey(t)!, (m.get(worldKey(t)!) ?? new Set()).add(canonicalJson(e.result)));
    }

  it("ask another world's logged lookup under the task's tenant, answered by the task's world with other facts", () => {
    const rand = mulberry32(3);
    let made = 0;
    for (const task of tasks) {
      const ex = tenantContrast(task, byWorld, rand);
      if (ex === undefined) continue;
      made++;
      const lines = ex!.messages[1]!.content.split("\n");
      expect(lines[0]).toMatch(/^tenant: w\d+$/);
      expect(task.system).toContain(lines[0]);
      const d = domainSpec(task.domain);
      const m = /^(\w+) (\{.*\}) ->$/.exec(lines.at(-1)!);
      expect(m).not.toBeNull();
      const [name, args] = [m![1]!, JSON.parse(m![2]!) as Record<string, unknown>];
      expect([d.owner.findTool, d.item.listTool, d.item.getTool]).toContain(name);
      // logged in another world of the domain
      const byWorldAnswers = logged.get(`${name} ${canonicalJson(args)}`)!;
      expect([...byWorldAnswers.keys()].some((w) => w !== worldKey(task))).toBe(true);
      // the target is this world's data answering it
      const real = toolworldResultValue(
        createToolworldEnv(task).callSync({ id: "x", name, arguments: args }),
      );
      expect(ex!.messages[2]!.content).toBe(
        `<execution_result>\n${JSON.stringify(real)}\n</execution_result>`,
      );
      // a contrast: another world logged another answer, and this world holds the entity (no refusal)
      const others = [...byWorldAnswers].filter(([w]) => w !== worldKey(task)).flatMap(([, a]) => [...a]);
      expect(others).not.toContain(canonicalJson(real));
      expect(ex!.messages[2]!.content).not.toContain('"error"');
      // the identical call is in no evidence line
      for (const line of lines.slice(1, -1)) expect(line.startsWith(lines.at(-1)!.slice(0, -3))).toBe(false);
    }
    // entities both worlds hold are common enough that a good share of tasks get one
    expect(made / tasks.length).toBeGreaterThan(0.2);
  });

  it("are in the full plan, added after every other example, one per task that finds one", () => {
    const plain = demoSftData(data, { ...FULL_PLAN, sftTenantContrasts: 0 }, 1);
    const asked = demoSftData(data, FULL_PLAN, 1);
    expect(FULL_PLAN.sftTenantContrasts).toBe(1);
    expect(asked.act).toEqual(plain.act);
    expect(asked.rehearse.slice(0, plain.rehearse.length)).toEqual(plain.rehearse);
    const added = asked.rehearse.length - plain.rehearse.length;
    expect(added).toBeGreaterThan(tasks.length * 0.2);
    expect(added).toBeLessThanOrEqual(tasks.length);
  });
});
