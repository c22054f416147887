import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tasksBenchRunner, type SampleLine, type TaskBenchSummary } from "../../../src/bench/tasks/index.js";
import type { EvalOptions } from "../../../src/bench/registry.js";

// A trace-only task: no env, so it runs with --env none (scored in the rehearsed world).
const task = {
  id: "notes-1",
  domain: "notes",
  tools: [
    {
      name: "add",
      description: "add a note",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
  ],
  user_turns: ["add milk"],
  checklists: [
    [
      [
        { question: "added milk?", rule: { call: "add", args: { text: "milk" } } },
        { question: "confirmed?", rule: { reply_contains: ["Added"] } },
      ],
    ],
  ],
  traces: [
    {
      messages: [
        { role: "user", content: "add milk" },
        { role: "assistant", tool_calls: [{ name: "add", arguments: { text: "milk" } }] },
        { role: "tool", content: '{"id": 7}' },
        { role: "assistant", content: "Added milk." },
      ],
    },
  ],
};

const dir = mkdtempSync(join(tmpdir(), "envace-tasks-bench-"));
const file = join(dir, "notes.jsonl");
writeFileSync(file, JSON.stringify(task) + "\n");

const run = (o: Partial<EvalOptions> & Record<string, unknown>) =>
  tasksBenchRunner().run({ variant: file, trials: 1, concurrency: 1, ...o }) as Promise<TaskBenchSummary>;

describe("tasks:FILE bench", () => {
  it("--env none: gold replays the trace in the rehearsed world and passes; noop fails", async () => {
    const gold = await run({ policy: "gold", env: "none" });
    expect(gold.environment).toMatch(/^rehearsed: no real environment/);
    expect(gold.results).toEqual([
      expect.objectContaining({
        task_id: "notes-1",
        reward: 1,
        success: true,
        env_calls: 0,
        rehearsed_calls: 1,
      }),
    ]);
    expect(gold).toMatchObject({ model: "gold", endpoint: null, pass_hat_k: { 1: 1 } });
    expect(Date.parse(gold.date)).not.toBeNaN();
    const noop = await run({ policy: "noop", env: "none" });
    expect(noop.reward_mean).toBe(0);
  });

  it("--log-samples writes each episode's transcript, calls and per-standard verdicts", async () => {
    const log = join(dir, "samples.jsonl");
    await run({ policy: "noop", env: "none", logSamples: log });
    const [line, ...rest] = readFileSync(log, "utf8").trim().split("\n");
    expect(rest).toEqual([]);
    const sample = JSON.parse(line!) as SampleLine;
    expect(sample).toMatchObject({ task_id: "notes-1", trial: 0, reward: 0, end_reason: "done", calls: [] });
    expect(sample.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(sample.verdicts).toEqual([
      { turn: 0, checklist: 0, question: "added milk?", rule: true, passed: false },
      { turn: 0, checklist: 0, question: "confirmed?", rule: true, passed: false },
    ]);
    await run({ policy: "gold", env: "none", logSamples: log });
    const gold = JSON.parse(readFileSync(log, "utf8")) as SampleLine;
    expect(gold.verdicts.map((v) => v.passed)).toEqual([true, true]);
    // The rehearsed answer is the traced call's recorded result (re-serialised by the parser).
    expect(gold.calls).toEqual([
      { turn: 0, name: "add", arguments: { text: "milk" }, result: '{"id":7}', source: "rehearsal" },
    ]);
  });

  it("replay:FILE plays the listed actions", async () => {
    const replay = join(dir, "replay.jsonl");
    writeFileSync(
      replay,
      JSON.stringify({ task_id: "notes-1", actions: [{ name: "add", arguments: { text: "eggs" } }] }),
    );
    const r = await run({ policy: `replay:${replay}`, env: "none" });
    // The call happened but with the wrong argument; the closing reply is not "Added".
    expect(r.results[0]).toMatchObject({ reward: 0, rehearsed_calls: 1 });
  });

  it("refuses a task file without env unless --env none, and unknown flags", async () => {
    await expect(run({ policy: "gold" })).rejects.toThrow(/task notes-1 has no env to run in .*--env none/);
    await expect(run({ policy: "gold", env: "docker" })).rejects.toThrow(/unknown --env "docker"/);
    await expect(run({ policy: "best", env: "none" })).rejects.toThrow(/unknown --policy "best"/);
    await expect(run({ env: "none" })).rejects.toThrow(/give exactly one agent/);
  });

  it("refuses --rehearsal without a real environment, --guard-tools writes, and tools the file lacks", async () => {
    await expect(run({ policy: "gold", env: "none", rehearsal: "parallel:2" })).rejects.toThrow(
      /--rehearsal rehearses before acting in the tasks' real environments; with --env none/,
    );
    await expect(
      run({ policy: "gold", env: "none", rehearsal: "parallel:2", guardTools: "writes" }),
    ).rejects.toThrow(/--guard-tools writes: a task file does not say which tools write/);
    await expect(
      run({ policy: "gold", env: "none", rehearsal: "parallel:2", guardTools: "rm" }),
    ).rejects.toThrow(/--guard-tools: this task file has no tool "rm" \(its tools: add\)/);
    // without --rehearsal the run reports rehearsal as off
    expect((await run({ policy: "gold", env: "none" })).rehearsal).toMatchObject({ mode: "none", n: 0 });
  });

  it("standards without a rule need a judge", async () => {
    const judged = join(dir, "judged.jsonl");
    writeFileSync(judged, JSON.stringify({ ...task, checklists: [[[{ question: "polite?" }]]] }) + "\n");
    await expect(
      tasksBenchRunner().run({
        variant: judged,
        trials: 1,
        concurrency: 1,
        policy: "gold",
        env: "none",
      } as EvalOptions),
    ).rejects.toThrow(/--judge-endpoint/);
  });
});
