import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/core/canonical-json.js";
import type { Task } from "../../../src/core/task.js";
import { armData, buildDemoData } from "../../../src/demo/data.js";
import { FULL_PLAN } from "../../../src/demo/layout.js";
import {
  loggedAnswerBook,
  recordedAnswerBook,
  scoreRehearsalsAgainstLogs,
  withLoggedRehearseReward,
} from "../../../src/demo/logged-answers.js";
import { isRefusal } from "../../../src/demo/refusal-recall.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { callKey, worldKey } from "../../../src/demo/worlds.js";
import {
  createToolworldEnv,
  domainSpec,
  toolworldResultValue,
  writeToolNames,
} from "../../../src/envs/toolworld/index.js";
import type { EpisodeResult, Row, ToolCallRecord } from "../../../src/rollout/types.js";
import { episode, row } from "../train/helpers.js";

const data = buildDemoData(FULL_PLAN, 1);
const logs = demoSftData(data, FULL_PLAN, 1).logs;
const book = loggedAnswerBook(logs);

describe("loggedAnswerBook: the past agent's logs on the untouched worlds", () => {
  it("answers as the real, untouched world does, refused writes included", () => {
    expect(logs).toHaveLength(Object.values(data.train).flat().length);
    const tasksByWorld = new Map<string, Task>();
    for (const { task } of logs) tasksByWorld.set(worldKey(task)!, task);
    let refusals = 0;
    for (const [key, logged] of book) {
      const [world, name, ...args] = key.split(" ");
      const task = tasksByWorld.get(world!)!;
      const call = { id: "c", name: name!, arguments: JSON.parse(args.join(" ")) as Record<string, unknown> };
      // a fresh world each time: the answer before anything was written
      const real = toolworldResultValue(createToolworldEnv(task).callSync(call));
      expect(canonicalJson(real), key).toBe(logged);
      if (writeToolNames(domainSpec(task.domain)).includes(name!) && isRefusal(JSON.parse(logged)))
        refusals++;
    }
    expect(book.size).toBeGreaterThan(500);
    // the past agent's forbidden writes, with the real refusals: what the task reward cannot teach
    expect(refusals).toBeGreaterThan(20);
  });

  it("keeps a run's calls up to its first accepted write, and drops calls the logs disagree on", () => {
    const [first] = logs.filter(({ run }) => run.turns.flatMap((t) => t.calls).length >= 2);
    const { task, run } = first!;
    const calls = run.turns.flatMap((t) => t.calls);
    const lookup = calls[0]!;
    const write = {
      call: { id: "w", name: writeToolNames(domainSpec(task.domain))[0]!, arguments: {} },
      result: {},
      ok: true,
    };
    const after = { call: { id: "a", name: "after_write", arguments: {} }, result: { any: 1 }, ok: true };
    const one = loggedAnswerBook([
      { task, run: { ...run, turns: [{ ...run.turns[0]!, calls: [lookup, write, after] }] } },
    ]);
    const key = (c: { name: string; arguments: Record<string, unknown> }) =>
      `${worldKey(task)} ${callKey(c)}`;
    expect(one.get(key(lookup.call))).toBe(canonicalJson(lookup.result));
    expect(one.has(key(write.call))).toBe(true);
    expect(one.has(key(after.call))).toBe(false);
    const other = { ...lookup, result: { changed: true } };
    const two = loggedAnswerBook([
      { task, run: { ...run, turns: [{ ...run.turns[0]!, calls: [lookup] }] } },
      { task, run: { ...run, turns: [{ ...run.turns[0]!, calls: [other] }] } },
    ]);
    expect(two.has(key(lookup.call))).toBe(false);
  });
});

describe("recordedAnswerBook: the RL tasks' own recorded calls (rehearseReward: recorded)", () => {
  it("answers as the RL tasks' world does; under worldDrift, the new snapshot where the logs say otherwise", () => {
    const drifted = armData({ ...FULL_PLAN, experiments: { worldDrift: 0.5 } }, 1, data);
    const tasks = Object.values(drifted.train).flat();
    const recorded = recordedAnswerBook(tasks);
    const taskOf = new Map(tasks.map((t) => [worldKey(t)!, t]));
    const oldKey = (key: string) => key.replace(/~\S+/, "");
    let contradicts = 0;
    for (const [key, answer] of recorded) {
      const [world, name, ...args] = key.split(" ");
      const call = { id: "c", name: name!, arguments: JSON.parse(args.join(" ")) as Record<string, unknown> };
      expect(
        canonicalJson(toolworldResultValue(createToolworldEnv(taskOf.get(world!)!).callSync(call))),
        key,
      ).toBe(answer);
      const logged = book.get(oldKey(key));
      if (logged !== undefined && logged !== answer) contradicts++;
    }
    expect(recorded.size).toBeGreaterThan(300);
    // the drift is what the logs cannot tell: some of the same calls answer differently now
    expect(contradicts).toBeGreaterThan(10);
    // without drift, the tasks' recorded answers never contradict the logs (one world)
    const undrifted = recordedAnswerBook(Object.values(data.train).flat());
    for (const [key, answer] of undrifted) {
      const logged = book.get(key);
      if (logged !== undefined) expect(logged, key).toBe(answer);
    }
  });
});

describe("scoreRehearsalsAgainstLogs", () => {
  // A logged lookup and a logged write of one task's world.
  const { task, run } = logs.find(({ task, run }) => {
    const writes = writeToolNames(domainSpec(task.domain));
    const calls = run.turns.flatMap((t) => t.calls);
    return calls.length >= 2 && !writes.includes(calls[0]!.call.name) && writes.includes(calls[1]!.call.name);
  })!;
  const [lookup, write] = run.turns.flatMap((t) => t.calls);
  const record = (call: typeof lookup, result: unknown, source: ToolCallRecord["source"] = "rehearsal") => ({
    turn: 0,
    call: call!.call,
    result: JSON.stringify(result),
    ok: true,
    source,
  });
  const reh = (callIndex: number): Row => ({ ...row("rehearse"), callIndex });
  const ep = (calls: ToolCallRecord[], rows: Row[]): EpisodeResult => ({
    ...episode(0, []),
    taskId: task.id,
    calls,
    rows: [row("act"), ...rows],
  });

  it("rewards a rehearsal 1 when it answers as logged and 0 when not; other rows keep the episode's", () => {
    const right = ep([record(lookup, lookup!.result), record(write, write!.result)], [reh(0), reh(1)]);
    const s = scoreRehearsalsAgainstLogs(right, task, book);
    expect(s.episode.rows.map((r) => r.reward)).toEqual([undefined, 1, 1]);
    expect([s.scored, s.right]).toEqual([2, 2]);
    const wrong = ep([record(lookup, { error: "not found" })], [reh(0)]);
    expect(scoreRehearsalsAgainstLogs(wrong, task, book).episode.rows[1]!.reward).toBe(0);
  });

  it("scores nothing after the episode's first write, nor a call the logs never answered", () => {
    const later = ep([record(write, write!.result), record(lookup, lookup!.result)], [reh(0), reh(1)]);
    expect(scoreRehearsalsAgainstLogs(later, task, book).episode.rows.map((r) => r.reward)).toEqual([
      undefined,
      1,
      undefined,
    ]);
    const unknown = { ...lookup!, call: { ...lookup!.call, arguments: { id: "zz404" } } };
    const s = scoreRehearsalsAgainstLogs(ep([record(unknown, {})], [reh(0)]), task, book);
    expect([s.scored, s.episode.rows[1]!.reward]).toEqual([0, undefined]);
    // a call that failed validation was never made: it is not the episode's first write
    const invalid = ep([record(write, "bad", "validation"), record(lookup, lookup!.result)], [reh(1)]);
    expect(scoreRehearsalsAgainstLogs(invalid, task, book).episode.rows[1]!.reward).toBe(1);
  });

  it("is applied by the sampler wrapper to every unmasked episode, with the step's counts", async () => {
    const episodes = [
      ep([record(lookup, lookup!.result)], [reh(0)]),
      ep([record(lookup, "no")], [reh(0)]),
      { ...ep([record(lookup, "no")], [reh(0)]), masked: true },
    ];
    const counts: { scored: number; right: number }[] = [];
    const sampler = withLoggedRehearseReward(
      { sampleGroups: () => Promise.resolve({ groups: [episodes] }) },
      [task],
      book,
      (c) => counts.push(c),
    );
    const { groups } = await sampler.sampleGroups([task], { groupSize: 3, step: 1 });
    expect(groups[0]!.map((e) => e.rows[1]!.reward)).toEqual([1, 0, undefined]);
    expect(counts).toEqual([{ scored: 2, right: 1 }]);
  });
});
