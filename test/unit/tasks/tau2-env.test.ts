import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tasksBenchRunner, type TaskBenchSummary } from "../../../src/bench/tasks/index.js";
import { TaskZ } from "../../../src/core/task.js";
import { environmentForTask } from "../../../src/envs/task-environment.js";
import { loadTau2Domain } from "../../../src/envs/tau2/index.js";

// τ²'s mock domain (shared/data): its tools, with a scripted user and a rule-based checklist.
const tools = loadTau2Domain("mock").createEnv().tools();
const call = { name: "create_task", arguments: { user_id: "user_1", title: "Important Meeting" } };
const task = {
  id: "mock-create",
  domain: "mock",
  tools,
  user_turns: ["Create a task called 'Important Meeting' for user_1."],
  checklists: [[[{ question: "created?", rule: { call: "create_task", args: call.arguments } }]]],
  examples: [{ ...call, result: { task_id: "task_2" } }],
  env: { kind: "tau2", domain: "mock", task_id: "create_task_1" },
};

describe("env.kind tau2 in a task file", () => {
  it("a fresh DB per episode, with the τ² task's initial state", async () => {
    const t = TaskZ.parse(task);
    const first = await environmentForTask(t);
    const before = first.hash();
    expect((await first.call({ id: "1", ...call })).ok).toBe(true);
    expect(first.hash()).not.toBe(before);
    const second = await environmentForTask(t);
    expect(second.hash()).toBe(before);
    await expect(
      environmentForTask(TaskZ.parse({ ...task, env: { kind: "tau2", domain: "mock", task_id: "nope" } })),
    ).rejects.toThrow(/env\.task_id "nope" is not a τ² mock task/);
  });

  it("tasks:FILE runs it for real: gold's recorded call reaches the τ² environment", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-tau2-task-"));
    const file = join(dir, "mock.jsonl");
    writeFileSync(file, JSON.stringify(task) + "\n");
    const r = (await tasksBenchRunner().run({
      variant: file,
      trials: 1,
      concurrency: 1,
      policy: "gold",
    })) as TaskBenchSummary;
    expect(r).toMatchObject({ environment: "real (tau2)", env_calls: 1, reward_mean: 1 });
  });
});
