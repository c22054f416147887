import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { FULL_PLAN, QUICK_PLAN } from "../../../src/demo/layout.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { demoSftExamples } from "../../../src/demo/sft-data.js";
import { entityCoverage } from "../../../src/demo/entity-coverage.js";
import { entityMentions, toolworldEntities } from "../../../src/envs/toolworld/index.js";
import type { SftExample } from "../../../src/train/sft.js";

/** Entities written by some SFT target (a call, a result, a reply). */
function written(examples: readonly SftExample[]): Set<string> {
  const out = new Set<string>();
  for (const ex of examples)
    for (const i of ex.targets) {
      const m = ex.messages[i]!;
      for (const w of entityMentions(JSON.stringify(m.toolCalls ?? []) + (m.content ?? ""))) out.add(w);
    }
  return out;
}

// Each test builds the SFT data of 600 tasks several times: seconds each, more on a loaded machine.
describe("pseudonymized renamed logs (entity coverage)", { timeout: 60_000 }, () => {
  const data = buildDemoData({ ...QUICK_PLAN, trainTasksPerDomain: 200 }, 6);
  const tasks = Object.values(data.train).flat();
  const forbidden = new Set(data.evalRequests);
  const plain = demoSftExamples(tasks, 6, { variant: "compact", aliasShare: 0.25 });
  const covered = demoSftExamples(tasks, 6, {
    variant: "compact",
    aliasShare: 0.25,
    coverEntities: { forbidden },
  });

  it("writes entities that no training task names, leaving the other examples as they were", () => {
    const before = written([...plain.act, ...plain.rehearse]);
    const after = written([...covered.act, ...covered.rehearse]);
    const gained = [...after].filter((w) => !before.has(w));
    expect(gained.length).toBeGreaterThan(20);
    expect(covered.rehearse).toEqual(plain.rehearse);
    const changed = covered.act.filter((ex, i) => JSON.stringify(ex) !== JSON.stringify(plain.act[i])).length;
    expect(changed).toBeGreaterThan(0);
    expect(changed).toBeLessThan(covered.act.length * 0.3);
  });

  it("writes each unnamed entity in up to `uses` renamed logs instead of one", () => {
    // every log renamed, so that there are more renamed logs than unnamed entities
    const renamed = (coverEntities?: { forbidden: ReadonlySet<string>; uses: number }) =>
      demoSftExamples(tasks, 6, {
        variant: "compact",
        aliasShare: 1,
        ...(coverEntities ? { coverEntities } : {}),
      }).act;
    const before = written(renamed());
    /** For each entity that renaming alone never writes: how many renamed logs (requests) write it. */
    const logsWriting = (act: readonly SftExample[]) => {
      const byEntity = new Map<string, Set<string>>();
      for (const ex of act) {
        const request = ex.messages.find((m) => m.role === "user")?.content ?? "";
        for (const w of written([ex]))
          if (!before.has(w)) byEntity.set(w, (byEntity.get(w) ?? new Set()).add(request));
      }
      return [...byEntity.values()].map((s) => s.size);
    };
    const once = logsWriting(renamed({ forbidden, uses: 1 }));
    const three = logsWriting(renamed({ forbidden, uses: 3 }));
    expect(once.length).toBeGreaterThan(20);
    expect(Math.max(...once)).toBe(1);
    expect(Math.max(...three)).toBe(3);
    expect(three.length).toBeGreaterThanOrEqual(once.length);
    // the renamed logs that used to stop at one per entity now write most entities again
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(three.filter((n) => n >= 2).length).toBeGreaterThan(once.length / 2);
    expect(sum(three)).toBeGreaterThan(2 * sum(once));
    expect(() =>
      demoSftExamples(tasks, 6, { variant: "compact", coverEntities: { forbidden, uses: 0 } }),
    ).toThrow(/uses/);
  });

  it("never turns a training request into an evaluation request", () => {
    const firstUser = (ex: SftExample) => ex.messages.find((m) => m.role === "user")?.content ?? "";
    const hits = (exs: readonly SftExample[]) => new Set(exs.map(firstUser).filter((u) => forbidden.has(u)));
    const added = [...hits(covered.act)].filter((u) => !hits(plain.act).has(u));
    expect(added).toEqual([]);
  });

  it("moves an entity consistently: the request and the call copied from it name the same new one", () => {
    const first = (ex: SftExample) => ex.messages.find((m) => m.toolCalls?.length)?.toolCalls?.[0];
    const userOf = (ex: SftExample) => ex.messages.find((m) => m.role === "user")?.content ?? "";
    let moved = 0;
    for (const [i, ex] of covered.act.entries()) {
      const was = plain.act[i]!;
      const pc = first(was);
      const cc = first(ex);
      if (!pc || !cc) continue;
      for (const [k, x] of Object.entries(pc.arguments)) {
        if (typeof x !== "string" || !userOf(was).includes(x)) continue;
        const y = cc.arguments[k];
        expect(typeof y).toBe("string");
        expect(userOf(ex)).toContain(y as string);
        if (y !== x) moved++;
      }
    }
    expect(moved).toBeGreaterThan(10);
  });
});

describe("balanced entity coverage (any log, donors kept at `uses`)", { timeout: 60_000 }, () => {
  const data = buildDemoData({ ...QUICK_PLAN, trainTasksPerDomain: 200 }, 6);
  const tasks = Object.values(data.train).flat();
  const forbidden = new Set(data.evalRequests);
  const isEntity = new Set(toolworldEntities());
  const namedBy = (ts: readonly { user_turns: string[]; examples: unknown }[]) => {
    const n = new Map<string, number>();
    for (const t of ts)
      for (const w of new Set(entityMentions(JSON.stringify([t.user_turns, t.examples]))))
        if (isEntity.has(w)) n.set(w, (n.get(w) ?? 0) + 1);
    return n;
  };

  it("raises under-named entities towards `uses` without taking any entity below it", () => {
    const uses = 6;
    const before = namedBy(tasks);
    const coverage = entityCoverage(tasks, forbidden, { uses, mode: "balanced" });
    const after = new Map<string, number>();
    let movedLogs = 0;
    for (const t of tasks) {
      const map = coverage.extend(t, "", new Map());
      if (map.size > 0) movedLogs++;
      const own = new Set(
        entityMentions(JSON.stringify([t.user_turns, t.examples])).filter((w) => isEntity.has(w)),
      );
      for (const w of new Set([...own].map((x) => map.get(x) ?? x))) after.set(w, (after.get(w) ?? 0) + 1);
    }
    expect(movedLogs).toBeGreaterThan(20);
    for (const e of isEntity)
      expect(after.get(e) ?? 0).toBeGreaterThanOrEqual(Math.min(before.get(e) ?? 0, uses));
    const deficit = (n: Map<string, number>) =>
      [...isEntity].reduce((s, e) => s + Math.max(0, uses - (n.get(e) ?? 0)), 0);
    expect(deficit(after)).toBeLessThan(deficit(before) - movedLogs);
  });

  it("pseudonymizes logs that are not renamed, and writes more entities than renamed logs alone", () => {
    const plain = demoSftExamples(tasks, 6, { variant: "compact" }).act;
    const unbalanced = demoSftExamples(tasks, 6, {
      variant: "compact",
      coverEntities: { forbidden, uses: 3 },
    }).act;
    const balanced = demoSftExamples(tasks, 6, {
      variant: "compact",
      coverEntities: { forbidden, uses: 3, mode: "balanced" },
    }).act;
    expect(unbalanced).toEqual(plain); // no renamed logs: nothing to pseudonymize
    const changed = balanced.filter((ex, i) => JSON.stringify(ex) !== JSON.stringify(plain[i])).length;
    expect(changed).toBeGreaterThan(20);
    const neverWritten = (act: readonly SftExample[]) => {
      const w = written(act);
      return [...isEntity].filter((e) => !w.has(e)).length;
    };
    const renamedOnly = demoSftExamples(tasks, 6, {
      variant: "compact",
      aliasShare: 0.25,
      coverEntities: { forbidden, uses: 3 },
    }).act;
    const both = demoSftExamples(tasks, 6, {
      variant: "compact",
      aliasShare: 0.25,
      coverEntities: { forbidden, uses: 3, mode: "balanced" },
    }).act;
    expect(neverWritten(both)).toBeLessThan(neverWritten(renamedOnly));
    const firstUser = (ex: SftExample) => ex.messages.find((m) => m.role === "user")?.content ?? "";
    const hits = (exs: readonly SftExample[]) => exs.map(firstUser).filter((u) => forbidden.has(u));
    expect(hits(balanced).length).toBeLessThanOrEqual(hits(plain).length);
  });
});

describe("the demo's SFT data (demoSftData)", { timeout: 60_000 }, () => {
  const plan = { ...QUICK_PLAN, trainTasksPerDomain: 200 };
  const data = buildDemoData(plan, 6);

  it("knows every evaluation request", () => {
    const turns = Object.values(data.eval).flatMap((ts) => ts.flatMap((t) => t.user_turns));
    expect(turns.length).toBeGreaterThan(0);
    expect(new Set(data.evalRequests)).toEqual(new Set(turns));
  });

  it("pseudonymizes logs, balanced, in both plans' recipe, and only when the plan says so", () => {
    expect(FULL_PLAN.sftPseudonymize).toEqual({ mode: "balanced", uses: 8 });
    expect(QUICK_PLAN.sftPseudonymize).toEqual(FULL_PLAN.sftPseudonymize);
    const on = demoSftData(data, plan, 6);
    const off = demoSftData(data, { ...plan, sftPseudonymize: false }, 6);
    const before = written(off.act);
    expect([...written(on.act)].filter((w) => !before.has(w)).length).toBeGreaterThan(20);
    expect(on.rehearse).toEqual(off.rehearse);
    // not renamed logs are pseudonymized too
    const renamedOnly = demoSftData(data, { ...plan, sftPseudonymize: { mode: "renamed", uses: 8 } }, 6);
    const changed = (a: readonly SftExample[]) =>
      a.filter((ex, i) => JSON.stringify(ex) !== JSON.stringify(off.act[i])).length;
    expect(changed(on.act)).toBeGreaterThan(changed(renamedOnly.act));
  });

  it("reads `sftPseudonymize: true` as recipe v9's (renamed logs, each unnamed entity once)", () => {
    const v9 = demoSftData(data, { ...plan, sftPseudonymize: true }, 6);
    expect(v9).toEqual(demoSftData(data, { ...plan, sftPseudonymize: { mode: "renamed", uses: 1 } }, 6));
    expect(v9).not.toEqual(demoSftData(data, plan, 6));
  });
});
