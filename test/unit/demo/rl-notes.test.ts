import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { tasksWithLoggedNotes, withLoggedNote } from "../../../src/demo/rehearsal-notes.js";
import { pastAgentRun } from "../../../src/envs/toolworld/index.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";
import { tasksByWorld, worldmates } from "../../../src/demo/worlds.js";
import { buildRehearsalPrompt, tenantLines } from "../../../src/rollout/rehearsal-prompt.js";
import { MEMORY_HEADER } from "../../../src/testtime/memory-view.js";

describe("rehearsal notes in RL tasks (issue 11: the actor keeps reading notes while RL changes it)", () => {
  const tasks = Object.values(buildDemoData(QUICK_PLAN, 7).train).flat();
  const noted = <T extends { system: string }>(ts: readonly T[]): T[] =>
    ts.filter((t) => t.system.includes(MEMORY_HEADER));

  it("puts a note built from the task's logged runs in about `share` of the single-turn tasks, none in the others", () => {
    const out = tasksWithLoggedNotes(tasks, 0.25, 7);
    expect(out).toHaveLength(tasks.length);
    const single = tasks.filter((t) => t.user_turns.length === 1).length;
    const n = noted(out).length;
    expect(n).toBeGreaterThan(single * 0.1);
    expect(n).toBeLessThan(single * 0.45);
    out.forEach((t, i) => {
      const before = tasks[i]!;
      if (before.user_turns.length !== 1) expect(t).toBe(before);
      if (!t.system.includes(MEMORY_HEADER)) return;
      // the task's own system prompt first (tenant line kept), then the note as test-time rehearsal writes it
      expect(t.system.startsWith(`${before.system}\n\n${MEMORY_HEADER}\n`)).toBe(true);
      expect(t.system).toMatch(/Attempt 1 \(replied/);
      expect(t.checklists).toEqual(before.checklists);
      expect(t.user_turns).toEqual(before.user_turns);
    });
  });

  it("is deterministic per seed, leaves its input alone, and adds nothing at share 0", () => {
    const copy = JSON.stringify(tasks);
    expect(JSON.stringify(tasksWithLoggedNotes(tasks, 0.25, 7))).toBe(
      JSON.stringify(tasksWithLoggedNotes(tasks, 0.25, 7)),
    );
    expect(JSON.stringify(tasksWithLoggedNotes(tasks, 0.25, 8))).not.toBe(
      JSON.stringify(tasksWithLoggedNotes(tasks, 0.25, 7)),
    );
    expect(JSON.stringify(tasks)).toBe(copy);
    expect(noted(tasksWithLoggedNotes(tasks, 0, 7))).toHaveLength(0);
  });

  it("keeps the note out of the rehearser's compact prompt, which still names the tenant", () => {
    const task = noted(tasksWithLoggedNotes(tasks, 1, 7))[0]!;
    expect(tenantLines(task.system)).toHaveLength(1);
    const prompt = buildRehearsalPrompt({
      task,
      history: [],
      call: { id: "c0", name: "x", arguments: {} },
      rawActMessage: "",
      variant: "compact",
    });
    const text = prompt.map((m) => m.content).join("\n");
    expect(text).not.toContain(MEMORY_HEADER);
    expect(text.split("\n")).toContain(tenantLines(task.system)[0]);
  });
});

describe("withLoggedNote's noise (experiments)", () => {
  const tasks = Object.values(buildDemoData(QUICK_PLAN, 9).train)
    .flat()
    .filter((t) => t.user_turns.length === 1);
  const byWorld = tasksByWorld(tasks);
  const note = (task: (typeof tasks)[number], noise: number, seed: number) => {
    const rand = mulberry32(seed);
    const run = pastAgentRun(task, rand);
    return withLoggedNote([{ role: "system", content: "" }], task, run, rand, {
      lenders: worldmates(byWorld, task),
      noise,
    })[0]!.content;
  };
  // the results a note shows, as the digest writes them
  const results = (text: string) => [...text.matchAll(/ -> (\{.*\})$/gm)].map((m) => m[1]!);

  it("swaps some results for other tasks' results of the same tool at noise 1, none at noise 0", () => {
    let swapped = 0;
    let total = 0;
    for (const task of tasks.slice(0, 40)) {
      const real = new Set(results(note(task, 0, 3)));
      const noisy = results(note(task, 1, 3));
      total += noisy.length;
      swapped += noisy.filter((r) => !real.has(r)).length;
    }
    expect(total).toBeGreaterThan(20);
    expect(swapped).toBeGreaterThan(total * 0.2);
  });
});
