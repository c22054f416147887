import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { testTimeRows, type DemoTestTimeChoices } from "../../../src/demo/testtime-rows.js";
import { domainSpec, toolworldWriteTools, writeToolNames } from "../../../src/envs/toolworld/index.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { hasNote } from "../testtime/fixtures.js";

const choices: DemoTestTimeChoices & { seed: number } = {
  seed: 7,
  attemptTemperature: 1,
  memory: "digest",
  promptVariant: "compact",
  noteUse: "act",
};

describe("test-time rehearsal rows of the demo", () => {
  // two single-turn tasks and a two-turn one: every user turn is rehearsed, not just the first
  const envless = buildDemoData(QUICK_PLAN, 2).eval.envless;
  const tasks = [
    ...envless.filter((t) => t.user_turns.length === 1).slice(0, 2),
    envless.find((t) => t.user_turns.length > 1)!,
  ];
  // every user turn is rehearsed; the scripted policy replies at once, so one call per attempt or commit
  const turns = tasks.reduce((a, t) => a + t.user_turns.length, 0);

  it("samples the imagined attempts at the given temperature and commits greedily", async () => {
    const policy = new ScriptedPolicy({ act: ["sorry, I cannot help."], repeatLast: true });
    const rows = await testTimeRows("p", policy, tasks, {
      ...choices,
      n: 2,
      concurrency: 4,
      attemptTemperature: 0.5,
    });
    expect(rows.map((r) => [r.mode, r.n])).toEqual([
      ["none", 0],
      ["parallel", 2],
      ["sequential", 2],
    ]);
    const temps = policy.calls.map((c) => c.request.temperature);
    // none: one greedy committed call per turn; parallel and sequential: 2 attempts + 1 commit per turn
    expect(turns).toBeGreaterThan(3);
    expect(temps.filter((t) => t === 0)).toHaveLength(3 * turns);
    expect(temps.filter((t) => t === 0.5)).toHaveLength(2 * 2 * turns);
    expect(temps.every((t) => t === 0 || t === 0.5)).toBe(true);
  });

  it("with noteUse decide, writes each committed step again without the note, and says so in the rows", async () => {
    // with the note in its system message the actor says one thing, without it another
    const policy = new ScriptedPolicy({
      act: [(r) => (hasNote(r) ? "sorry, noted." : "sorry, real.")],
      repeatLast: true,
    });
    const rows = await testTimeRows("p", policy, tasks, {
      ...choices,
      noteUse: "decide",
      n: 2,
      concurrency: 4,
    });
    expect(rows.map((r) => [r.mode, r.note_use, r.rewritten_steps])).toEqual([
      ["none", undefined, undefined],
      ["parallel", "decide", turns],
      ["sequential", "decide", turns],
    ]);
    const acted = await testTimeRows("p", policy, tasks, { ...choices, n: 2, concurrency: 4 });
    expect(acted.every((r) => r.note_use === undefined && r.rewritten_steps === undefined)).toBe(true);
  });

  it("with guard, holds back every write its rehearsal saw refused, and says so in the rows", async () => {
    const domain = tasks[0]!.domain;
    const same = envless.filter((t) => t.domain === domain).slice(0, 3);
    const write = toolworldWriteTools(same[0]!)[0]!;
    expect(toolworldWriteTools(same[0]!)).toEqual(writeToolNames(domainSpec(domain)));
    const attempt = `<tool_call>${JSON.stringify({ name: write, arguments: { id: "x1" } })}</tool_call>`;
    const policy = new ScriptedPolicy({
      act: [(r) => (r.messages[r.messages.length - 1]!.role === "tool" ? "sorry, I cannot." : attempt)],
      rehearse: ['<execution_result>\n{"error":"x1 is closed"}\n</execution_result>'],
      repeatLast: true,
    });
    const rows = await testTimeRows("p", policy, same, { ...choices, n: 2, concurrency: 4, guard: true });
    const sameTurns = same.reduce((a, t) => a + t.user_turns.length, 0);
    expect(rows.map((r) => [r.mode, r.guard, r.held_calls])).toEqual([
      ["none", undefined, undefined],
      ["parallel", true, sameTurns],
      ["sequential", true, sameTurns],
    ]);
    const unguarded = await testTimeRows("p", policy, same, { ...choices, n: 2, concurrency: 4 });
    expect(unguarded.every((r) => r.guard === undefined && r.held_calls === undefined)).toBe(true);
  });
});
