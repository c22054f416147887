import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/canonical-json.js";
import type { ChatModel } from "../../../src/core/model.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { probeFidelity, recordedProbes } from "../../../src/demo/fidelity-probes.js";
import { FULL_PLAN } from "../../../src/demo/layout.js";
import {
  classifyMiss,
  loggedAnswers,
  missesOf,
  missReport,
  MISS_EXAMPLES,
  domainTenants,
  tenantSensitivity,
  withTenant,
  worldDependent,
  type Miss,
} from "../../../src/demo/rehearser-misses.js";
import { callKey, worldKey } from "../../../src/demo/worlds.js";

const logTask = (id: string, seed: number, examples: Task["examples"]): Task =>
  TaskZ.parse({
    id,
    domain: "calendar",
    system: "s",
    tools: [],
    user_turns: ["u"],
    checklists: [[[{ question: "q", rule: { call: "get_event" } }]]],
    examples,
    env: { kind: "toolworld", seed },
  });

describe("classifyMiss", () => {
  const e9 = { name: "get_event", arguments: { event_id: "e9" } };
  const logs = loggedAnswers([
    logTask("a", 1, [{ ...e9, result: { status: "confirmed", day: "saturday" } }]),
    logTask("b", 2, [{ ...e9, result: { error: "event e9 not found" } }]),
    logTask("c", 2, [{ name: "get_event", arguments: { event_id: "e5" }, result: { day: "monday" } }]),
  ]);
  const miss = (world: string, call: Miss["call"], rehearsed: unknown): Miss => ({
    world,
    call,
    rehearsed,
    real: { day: "saturday" },
  });

  it("tells another world's answer from a call never logged here and from a logged one missed", () => {
    // world 1's e9 exists: "not found" is world 2's answer
    expect(classifyMiss(miss("calendar@1", e9, { error: "event e9 not found" }), logs)).toBe("other_world");
    // world 1 never logged e5; the answer world 2 gave is still another world's
    const e5 = { name: "get_event", arguments: { event_id: "e5" } };
    expect(classifyMiss(miss("calendar@1", e5, { day: "monday" }), logs)).toBe("other_world");
    expect(classifyMiss(miss("calendar@1", e5, { day: "friday" }), logs)).toBe("not_logged");
    expect(classifyMiss(miss("calendar@1", e9, { status: "past", day: "saturday" }), logs)).toBe(
      "logged_but_missed",
    );
    expect(classifyMiss(miss("calendar@1", e9, undefined), logs)).toBe("unparsed");
  });

  it("tells another tool's answer to the same arguments", () => {
    const shop = loggedAnswers([
      logTask("s", 7, [{ name: "find_user", arguments: { email: "dora@mail" }, result: { user_id: "u32" } }]),
      logTask("b", 1, [
        { name: "find_customer", arguments: { email: "ivan@mail" }, result: { customer_id: "c2" } },
      ]),
    ]);
    const call = { name: "find_customer", arguments: { email: "dora@mail" } };
    expect(classifyMiss(miss("calendar@1", call, { user_id: "u32" }), shop)).toBe("other_tool");
    // the other tool's value under this tool's key
    expect(classifyMiss(miss("calendar@1", call, { customer_id: "u32" }), shop)).toBe("other_tool");
    expect(classifyMiss(miss("calendar@1", call, { customer_id: "u33" }), shop)).toBe("not_logged");
    expect(classifyMiss(miss("calendar@1", call, { customer_id: "c2" }), shop)).toBe("not_logged");
  });

  it("calls an answer this world also gave (in another state) that, not another world's", () => {
    const both = loggedAnswers([
      logTask("a", 1, [{ ...e9, result: { day: "x" } }]),
      logTask("a2", 1, [{ ...e9, result: { day: "y" } }]),
      logTask("b", 2, [{ ...e9, result: { day: "y" } }]),
    ]);
    expect(classifyMiss(miss("calendar@1", e9, { day: "y" }), both)).toBe("other_state");
  });

  it("counts misses by kind and by tool", () => {
    const r = missReport(
      5,
      [
        miss("calendar@1", e9, { error: "event e9 not found" }),
        miss("calendar@1", e9, undefined),
        miss("calendar@2", { name: "move_event", arguments: { event_id: "e9" } }, {}),
      ],
      logs,
    );
    expect(r).toMatchObject({
      probes: 5,
      misses: 3,
      by_kind: {
        other_state: 0,
        other_world: 1,
        other_tool: 0,
        not_logged: 1,
        logged_but_missed: 0,
        unparsed: 1,
      },
      by_tool: { get_event: { other_world: 1, unparsed: 1 }, move_event: { not_logged: 1 } },
    });
    expect(Object.keys(r.examples).sort()).toEqual(["not_logged", "other_world", "unparsed"]);
    expect(r.examples.other_world![0]!.rehearsed).toEqual({ error: "event e9 not found" });
    const many = missReport(
      9,
      Array.from({ length: 9 }, () => miss("calendar@1", e9, undefined)),
      logs,
    );
    expect(many.examples.unparsed).toHaveLength(MISS_EXAMPLES);
  });
});

describe("misses of a rehearser that answers from the wrong world, on the demo's seed-1 data", () => {
  const data = buildDemoData(FULL_PLAN, 1);
  const logs = Object.values(data.train).flat();
  const answers = loggedAnswers(logs);

  it("are classified as another world's answers wherever the logs show one", async () => {
    const probes = recordedProbes(data.eval.envless);
    // Answers each call with an answer another world's logs gave it (the first found), else "{}".
    const wrongWorld: ChatModel = {
      name: "wrong-world",
      chat: (req) => {
        const user = req.messages.find((m) => m.role === "user")?.content ?? "";
        const p = probes.find((x) => user.endsWith(`${x.call.name} ${JSON.stringify(x.call.arguments)} ->`));
        const byWorld = p ? answers.byCall.get(callKey(p.call)) : undefined;
        const here = byWorld?.get(worldKey(p!.task)!);
        const other = [...(byWorld ?? [])].flatMap(([, a]) => [...a]).find((x) => !here?.has(x));
        const text = other ?? "{}";
        return Promise.resolve({
          samples: [{ text: `<execution_result>\n${text}\n</execution_result>`, finishReason: "stop" }],
        });
      },
    };
    const scored = await probeFidelity(wrongWorld, probes, {
      max: 120,
      concurrency: 8,
      unseenOnly: true,
      variant: "compact",
    });
    const misses = missesOf(scored);
    const report = missReport(scored.length, misses, answers);
    expect(report.probes).toBe(120);
    // Each probe's prompt ends with its call; a probe answered from another world is that kind of miss.
    const fromOtherWorld = scored.filter((s) => {
      const w = worldKey(s.probe.task)!;
      const said = canonicalJson(s.rehearsed);
      const byWorld = answers.byCall.get(callKey(s.probe.call));
      return (
        !s.score.exact &&
        [...(byWorld ?? [])].some(([x, a]) => x !== w && a.has(said)) &&
        !byWorld?.get(w)?.has(said)
      );
    });
    expect(fromOtherWorld.length).toBeGreaterThan(10);
    expect(report.by_kind.other_world).toBe(fromOtherWorld.length);
    expect(report.misses).toBe(scored.filter((s) => !s.score.exact).length);
    expect(Object.values(report.by_kind).reduce((a, b) => a + b, 0)).toBe(report.misses);
  });
});

describe("tenant sensitivity on the demo's seed-1 data", () => {
  const data = buildDemoData(FULL_PLAN, 1);
  const tenants = domainTenants(Object.values(data.train).flat());
  const probes = recordedProbes(data.eval.envless).slice(0, 12);
  /** Answers with the tenant the prompt names (reads the world), or always the same (ignores it). */
  const answering = (readsTenant: boolean): ChatModel => ({
    name: readsTenant ? "reads" : "ignores",
    chat: (req) => {
      const user = req.messages.find((m) => m.role === "user")?.content ?? "";
      const tenant = readsTenant ? (/^tenant: (\S+)/m.exec(user)?.[1] ?? "none") : "same";
      return Promise.resolve({
        samples: [
          { text: `<execution_result>\n{"world":"${tenant}"}\n</execution_result>`, finishReason: "stop" },
        ],
      });
    },
  });

  it("finds every domain's tenants, and swaps the probe's tenant line only", () => {
    expect([...tenants.keys()].sort()).toEqual(["bank", "calendar", "shop"]);
    for (const lines of tenants.values())
      expect(lines).toEqual(["tenant: w1", "tenant: w2", "tenant: w3", "tenant: w4"]);
    const p = probes[0]!;
    const q = withTenant(p, "tenant: w4");
    expect(q.task.system.split("\n").filter((l) => l.startsWith("tenant: "))).toEqual(["tenant: w4"]);
    expect(q.task.system.replace("tenant: w4", "")).toBe(p.task.system.replace(/^tenant: \S+$/m, ""));
    expect(q.call).toBe(p.call);
  });

  it("is 1 for a rehearser that reads the tenant line and 0 for one that ignores it", async () => {
    for (const [reads, changed] of [
      [true, 12],
      [false, 0],
    ] as const) {
      const model = answering(reads);
      // scored under their own tenants first, as the bench does
      const scored = await probeFidelity(model, probes, {
        max: probes.length,
        concurrency: 4,
        variant: "compact",
      });
      expect(await tenantSensitivity(model, scored, tenants, 4, "compact")).toEqual({ probes: 12, changed });
    }
  });
});

describe("worldDependent", () => {
  const data = buildDemoData(FULL_PLAN, 1);
  const logs = Object.values(data.train).flat();
  const probes = recordedProbes(data.eval.envless);

  it("counts the probes whose call the domain's worlds answer differently", () => {
    const n = worldDependent(probes, logs);
    expect(n).toBeGreaterThan(0);
    expect(n).toBeLessThan(probes.length);
    // an id no world holds is "not found" in every world: never world-dependent
    const nowhere = probes.slice(0, 3).map((p) => ({
      ...p,
      call: {
        ...p.call,
        arguments: Object.fromEntries(Object.keys(p.call.arguments).map((k) => [k, "zz999"])),
      },
    }));
    expect(worldDependent(nowhere, logs)).toBe(0);
  });
});
