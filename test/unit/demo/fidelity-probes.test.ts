import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { buildDemoData } from "../../../src/demo/data.js";
import { FULL_PLAN } from "../../../src/demo/layout.js";
import type { ChatModel } from "../../../src/core/model.js";
import {
  answerInPrompt,
  fidelityByTool,
  probeFidelity,
  recordedProbes,
  type ProbeScores,
  selectProbes,
  spreadAcrossDomains,
} from "../../../src/demo/fidelity-probes.js";

const probe = (domain: string, i: number) => ({ task: { domain }, i });

describe("spreadAcrossDomains", () => {
  it("takes each domain's probes in order, in turn, until the cap", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 60 }), fc.nat(70), (domains, max) => {
        const probes = domains.map(probe);
        const picked = spreadAcrossDomains(probes, max);
        expect(picked.length).toBe(Math.min(max, probes.length));
        const counts = new Map<string, number>();
        for (const d of ["a", "b", "c"]) {
          const mine = picked.filter((p) => p.task.domain === d);
          // A prefix of the domain's own probes, in their order.
          expect(mine).toEqual(probes.filter((p) => p.task.domain === d).slice(0, mine.length));
          counts.set(d, mine.length);
        }
        // Balanced: a domain with fewer picks than another (by two or more) has none left.
        for (const [d, n] of counts) {
          const available = domains.filter((x) => x === d).length;
          for (const m of counts.values()) if (n < m - 1) expect(n).toBe(available);
        }
      }),
    );
  });
});

/** The full plan's seed-1 data, shared by the suites below (built once: it is the file's slow part). */
const data = buildDemoData(FULL_PLAN, 1);

describe("fidelity probes of the demo's env-less set", () => {
  const max = FULL_PLAN.fidelityCalls;

  it("cover every domain: the set lists its tasks domain by domain, so the first calls alone would not", () => {
    const probes = recordedProbes(data.eval.envless);
    const domains = new Set(data.eval.envless.map((t) => t.domain));
    expect(domains.size).toBeGreaterThan(1);
    expect(new Set(probes.slice(0, max).map((p) => p.task.domain)).size).toBe(1);
    const picked = selectProbes(probes, { max });
    expect(picked).toHaveLength(max);
    for (const d of domains)
      expect(picked.filter((p) => p.task.domain === d)).toHaveLength(max / domains.size);
  });

  it("drop the calls whose answer the prompt shows before capping, so the cap counts unseen calls", () => {
    // The evaluation tasks with their own recorded answers first (every call seen), then without.
    const seen = recordedProbes(data.envlessWithAnswers);
    const unseen = recordedProbes(data.eval.envless).filter((p) => !answerInPrompt(p));
    expect(seen.every(answerInPrompt)).toBe(true);
    expect(unseen.length).toBeGreaterThanOrEqual(max);
    const picked = selectProbes([...seen, ...unseen], { max, unseenOnly: true });
    expect(picked).toHaveLength(max);
    expect(picked.some(answerInPrompt)).toBe(false);
    expect(selectProbes(seen, { max, unseenOnly: true })).toEqual([]);
    expect(selectProbes(seen, { max })).toHaveLength(max);
  });
});

describe("fidelity by tool", () => {
  /** A rehearser that answers every call as a successful move would be answered. */
  const movedOnly: ChatModel = {
    name: "moved-only",
    chat: () =>
      Promise.resolve({
        samples: [
          { text: '<execution_result>\n{"result":"moved"}\n</execution_result>', finishReason: "stop" },
        ],
      }),
  };

  it("scores each probe under its own tool: right only on the successful moves", async () => {
    const probes = recordedProbes(data.eval.envless);
    const scored = await probeFidelity(movedOnly, probes, { max: 400, concurrency: 4, variant: "compact" });
    expect(scored).toHaveLength(Math.min(400, probes.length));
    const byTool = fidelityByTool(scored);
    const picked = selectProbes(probes, { max: 400 });
    const moved = picked.filter(
      (p) => p.call.name === "move_event" && JSON.stringify(p.real) === '{"result":"moved"}',
    );
    expect(moved.length).toBeGreaterThan(0);
    expect(byTool.move_event!.hits).toBe(moved.length);
    for (const [tool, t] of Object.entries(byTool)) {
      expect(t.n).toBe(picked.filter((p) => p.call.name === tool).length);
      if (tool !== "move_event") expect(t.hits).toBe(0);
    }
    expect(Object.keys(byTool)).toEqual(Object.keys(byTool).sort());
  });

  it("rehearses a probe once across calls that share their scores (all calls, then unseen ones)", async () => {
    let calls = 0;
    const counting: ChatModel = { name: "counting", chat: (r) => (calls++, movedOnly.chat(r)) };
    const probes = [...recordedProbes(data.envlessWithAnswers), ...recordedProbes(data.eval.envless)];
    const known: ProbeScores = new Map();
    const all = await probeFidelity(
      counting,
      probes,
      { max: 300, concurrency: 4, variant: "compact" },
      known,
    );
    const unseenOpts = { max: 300, concurrency: 4, unseenOnly: true, variant: "compact" as const };
    const unseen = await probeFidelity(counting, probes, unseenOpts, known);
    const union = new Set([...all, ...unseen].map((x) => x.probe));
    expect(unseen.some((x) => all.some((y) => y.probe === x.probe))).toBe(true);
    expect(calls).toBe(union.size);
    expect(unseen).toHaveLength(selectProbes(probes, unseenOpts).length);
    // without shared scores, the overlap is rehearsed twice
    calls = 0;
    await probeFidelity(counting, probes, { max: 300, concurrency: 4, variant: "compact" });
    await probeFidelity(counting, probes, unseenOpts);
    expect(calls).toBe(all.length + unseen.length);
  });
});
