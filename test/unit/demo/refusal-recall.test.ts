import { describe, expect, it } from "vitest";
import type { ChatModel } from "../../../src/core/model.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { probeFidelity } from "../../../src/demo/fidelity-probes.js";
import { FULL_PLAN } from "../../../src/demo/layout.js";
import { isRefusal, refusalProbes, refusalReport } from "../../../src/demo/refusal-recall.js";
import { domainSpec, writeToolNames } from "../../../src/envs/toolworld/index.js";

const tasks = buildDemoData(FULL_PLAN, 2).eval.envless;
const probes = refusalProbes(tasks);

/** A rehearser that answers every call with `result`. */
const answering = (result: string): ChatModel => ({
  name: "fixed",
  chat: () =>
    Promise.resolve({
      samples: [{ text: `<execution_result>\n${result}\n</execution_result>`, finishReason: "stop" }],
    }),
});

describe("refusalProbes: the writes of the logged runs, refused and accepted", () => {
  it("holds forbidden writes the real tool refused and allowed ones it accepted, after a lookup", () => {
    const forbidden = probes.filter((p) => p.forbidden);
    const allowed = probes.filter((p) => !p.forbidden);
    expect(forbidden.length).toBeGreaterThan(20);
    expect(allowed.length).toBeGreaterThan(20);
    for (const p of probes) {
      expect(writeToolNames(domainSpec(p.task.domain))).toContain(p.call.name);
      expect(isRefusal(p.real)).toBe(p.forbidden);
      // the real conversation before the call: the user's request, and a lookup's real answer
      expect(p.history.some((m) => m.role === "user")).toBe(true);
    }
    // a forbidden write follows the read that shows the forbidding status (this turn's or the last)
    expect(forbidden.every((p) => p.history.some((m) => m.role === "tool"))).toBe(true);
    // every domain's writes are probed both ways somewhere
    expect(new Set(forbidden.map((p) => p.call.name))).toEqual(new Set(allowed.map((p) => p.call.name)));
  });

  it("is the same list each time (the past agent's draws decide nothing)", () => {
    const again = refusalProbes(tasks);
    expect(again.map((p) => [p.task.id, p.call.name, p.forbidden])).toEqual(
      probes.map((p) => [p.task.id, p.call.name, p.forbidden]),
    );
  });
});

describe("refusalReport", () => {
  it("a rehearser that refuses everything: recall 1, false refusals 1; one that refuses nothing: 0, 0", async () => {
    const opts = { max: 1000, concurrency: 4, variant: "compact" as const };
    const no = refusalReport(await probeFidelity(answering('{"error":"no"}'), probes, opts));
    expect(no).toMatchObject({ recall: 1, false_refusals: 1 });
    expect(no.forbidden + no.allowed).toBe(probes.length);
    const yes = refusalReport(await probeFidelity(answering('{"result":"sent"}'), probes, opts));
    expect(yes).toMatchObject({ recall: 0, false_refusals: 0 });
    // by tool, sorted, adding up to the whole
    const tools = Object.keys(yes.by_tool);
    expect(tools).toEqual([...tools].sort());
    expect(Object.values(yes.by_tool).reduce((a, c) => a + c.forbidden, 0)).toBe(yes.forbidden);
  });

  it("counts a refusal only as the tools give one: an `error` object", () => {
    expect(isRefusal({ error: "account a2 is closed" })).toBe(true);
    expect(isRefusal({ result: "event e37 is past" })).toBe(false);
    expect(isRefusal(["error"])).toBe(false);
    expect(isRefusal(undefined)).toBe(false);
  });
});
