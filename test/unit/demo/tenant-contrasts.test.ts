import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/canonical-json.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { FULL_PLAN } from "../../../src/demo/layout.js";
import { tenantContrast } from "../../../src/demo/sft-data.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { tasksByWorld, worldKey } from "../../../src/demo/worlds.js";
import { createToolworldEnv, domainSpec, toolworldResultValue } from "../../../src/envs/toolworld/index.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";

describe("tenant contrasts (experiment sftTenantContrasts)", () => {
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

  it("ask another world's logged lookup under the task's tenant, answered by the task's world", () => {
    const rand = mulberry32(3);
    let differs = 0;
    let facts = 0;
    for (const task of tasks) {
      const ex = tenantContrast(task, byWorld, rand);
      expect(ex).toBeDefined();
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
      const others = [...byWorldAnswers].filter(([w]) => w !== worldKey(task)).flatMap(([, a]) => [...a]);
      if (!others.includes(canonicalJson(real))) differs++;
      if (!JSON.stringify(real).includes("not found")) facts++;
      // the identical call is in no evidence line
      for (const line of lines.slice(1, -1)) expect(line.startsWith(lines.at(-1)!.slice(0, -3))).toBe(false);
    }
    // what makes them contrasts: the answer differs from what another world logged, and a good
    // share are facts of an entity both worlds hold (not only "not found")
    expect(differs / tasks.length).toBeGreaterThan(0.8);
    expect(facts / tasks.length).toBeGreaterThan(0.2);
  });

  it("are off by default, and added after every other example when asked", () => {
    const plain = demoSftData(data, FULL_PLAN, 1);
    const asked = demoSftData(data, { ...FULL_PLAN, experiments: { sftTenantContrasts: 0.5 } }, 1);
    expect(asked.act).toEqual(plain.act);
    expect(asked.rehearse.slice(0, plain.rehearse.length)).toEqual(plain.rehearse);
    const added = asked.rehearse.length - plain.rehearse.length;
    const sd = Math.sqrt(tasks.length * 0.25);
    expect(Math.abs(added - tasks.length * 0.5)).toBeLessThan(4 * sd);
  });

  it("with factsOnly, are only entities both worlds hold with other facts (no refusals)", () => {
    const rand = mulberry32(5);
    const made = tasks.map((t) => tenantContrast(t, byWorld, rand, true)).filter((x) => x !== undefined);
    expect(made.length).toBeGreaterThan(tasks.length * 0.2);
    for (const ex of made) expect(ex.messages[2]!.content).not.toContain('"error"');
  });
});
