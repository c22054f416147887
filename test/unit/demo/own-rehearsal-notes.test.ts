import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import { requestSeed, scopedSeed } from "../../../src/core/sampling-seeds.js";
import type { Task } from "../../../src/core/task.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { withOwnRehearsalNotes } from "../../../src/demo/own-rehearsal-notes.js";
import { testTimeRehearsal } from "../../../src/demo/testtime-rows.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { MEMORY_HEADER } from "../../../src/testtime/memory-view.js";
import type { EpisodeSampler } from "../../../src/train/loop.js";
import { call, result } from "../rollout/fixtures.js";

const tasks = Object.values(buildDemoData(QUICK_PLAN, 7).train).flat();
const single = tasks.filter((t) => t.user_turns.length === 1);
const byRequest = new Map(tasks.map((t) => [t.user_turns[0], t]));

/** Acts with the task's first recorded call, then replies; rehearses a marked result. */
function policy() {
  const actor = (r: ChatRequest): string => {
    const last = r.messages[r.messages.length - 1]!;
    if (last.role === "tool") return "done.";
    const user = [...r.messages].reverse().find((m) => m.role === "user")?.content ?? "";
    const first = byRequest.get(user)?.examples[0];
    return first ? call(first.name, first.arguments) : "nothing to do.";
  };
  return new ScriptedPolicy({ act: [actor], rehearse: [result({ imagined: 1 })], repeatLast: true });
}

/** An inner sampler that only records the tasks it was given. */
function recorder() {
  const seen: Task[][] = [];
  const sampler: EpisodeSampler = {
    async sampleGroups(ts) {
      seen.push(ts);
      return { groups: ts.map(() => []) };
    },
  };
  return { seen, sampler };
}

const rehearsal = testTimeRehearsal("parallel", 2, {
  attemptTemperature: 0.5,
  memory: "digest",
  promptVariant: "compact",
  noteUse: "act",
});

/** One step of the noted sampler over `input`: what the inner sampler was given, and the policy. */
async function noteStep(
  input: Task[],
  o: { share?: number; seed?: number; step?: number; policy?: ChatModel } = {},
): Promise<Task[]> {
  const { seen, sampler } = recorder();
  await withOwnRehearsalNotes(sampler, {
    policy: o.policy ?? policy(),
    share: o.share ?? 1,
    seed: o.seed ?? 3,
    rehearsal,
    pool: tasks,
  }).sampleGroups(input, { groupSize: 4, step: o.step ?? 1 });
  return seen[0]!;
}

describe("RL groups under the policy's own rehearsal notes (issue 11: test-time rehearsal that helps)", () => {
  it("notes about `share` of a step's single-turn tasks with the note test-time rehearsal writes, and nothing else of the task", async () => {
    const p = policy();
    const out = await noteStep(tasks, { policy: p, share: 0.5 });
    expect(out).toHaveLength(tasks.length);
    const withNote = out.filter((t) => t.system.includes(MEMORY_HEADER));
    expect(withNote.length).toBeGreaterThan(single.length * 0.3);
    expect(withNote.length).toBeLessThan(single.length * 0.7);
    out.forEach((t, i) => {
      const before = tasks[i]!;
      if (!t.system.includes(MEMORY_HEADER)) return expect(t).toBe(before);
      expect(before.user_turns).toHaveLength(1);
      expect(t.system.startsWith(`${before.system}\n\n${MEMORY_HEADER}\n`)).toBe(true);
      expect(t.system).toContain("Before acting you rehearsed this step privately 2 time(s).");
      // both attempts: the recorded call the actor made, the imagined result, the reply
      const first = before.examples[0]!;
      expect(t.system).toContain(`- ${first.name} ${JSON.stringify(first.arguments)} -> {"imagined":1}`);
      expect(t.system.match(/^Attempt \d \(replied to the user\):$/gm)).toHaveLength(2);
      expect({ ...t, system: before.system }).toEqual(before);
    });
    // two attempts per noted task, each acting twice and rehearsing once
    expect(p.callsFor("rehearse")).toHaveLength(2 * withNote.length);
    expect(p.callsFor("act")).toHaveLength(4 * withNote.length);
  });

  it("shows the rehearser other tasks' logs of the world, never the noted task's own recorded results", async () => {
    const p = policy();
    const out = await noteStep(single.slice(0, 12), { policy: p });
    expect(out.every((t) => t.system.includes(MEMORY_HEADER))).toBe(true);
    // The actor makes its task's first recorded call: with the task's own logs the compact prompt
    // would hold that call's recorded answer above the call to simulate (its last line).
    const prompts = p.callsFor("rehearse").map((c) => String(c.request.messages[1]?.content).split("\n"));
    expect(prompts).toHaveLength(24);
    for (const lines of prompts) {
      const current = lines[lines.length - 1]!;
      expect(current.endsWith(" ->")).toBe(true);
      expect(lines.slice(0, -1).filter((l) => l.startsWith(`${current} `))).toEqual([]);
    }
    // other tasks' logs of the world are there as evidence
    expect(prompts.filter((lines) => lines.some((l) => / -> \{/.test(l))).length).toBeGreaterThan(12);
  });

  it("seeds each attempt's requests from (seed, step, task, attempt), whatever order they run in", async () => {
    const task = single[0]!;
    const seeds: (number | undefined)[] = [];
    const inner = policy();
    const seeded: ChatModel = {
      name: "seeded",
      chat: (req) => (seeds.push(scopedSeed()), inner.chat(req)),
    };
    await noteStep([task], { policy: seeded, step: 5 });
    const key = (sample: number) => ({ seed: 3, step: 5, task: `${task.id}#note`, sample });
    // two attempts × (act, rehearse, act): calls 0–2 of each attempt's own scope
    expect(seeds.sort()).toEqual([0, 1].flatMap((a) => [0, 1, 2].map((k) => requestSeed(key(a), k))).sort());
  });

  it("draws per (seed, step), leaves multi-turn and logged-note tasks alone, and is the sampler itself at share 0", async () => {
    const draw = async (seed: number, step: number) =>
      (await noteStep(tasks, { share: 0.5, seed, step })).map((t) => t.system.includes(MEMORY_HEADER));
    expect(await draw(3, 1)).toEqual(await draw(3, 1));
    expect(await draw(3, 2)).not.toEqual(await draw(3, 1));
    expect(await draw(4, 1)).not.toEqual(await draw(3, 1));

    const multi = tasks.filter((t) => t.user_turns.length > 1);
    const logged = { ...single[0]!, system: `${single[0]!.system}\n\n${MEMORY_HEADER}\nlogged` };
    const p = policy();
    expect(await noteStep([...multi, logged], { policy: p })).toEqual([...multi, logged]);
    expect(p.calls).toHaveLength(0);

    const { sampler: inner } = recorder();
    expect(withOwnRehearsalNotes(inner, { policy: p, share: 0, seed: 3, rehearsal, pool: tasks })).toBe(
      inner,
    );
  });
});
