import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTasks, parseTasks } from "../../../src/rollout/index.js";

const ok = { id: "a", domain: "d", tools: [], user_turns: ["hi"] };

describe("loadTasks", () => {
  it("reads JSONL, skipping blank lines, with defaults filled in", async () => {
    const dir = await mkdtemp(join(tmpdir(), "envace-tasks-"));
    const path = join(dir, "t.jsonl");
    await writeFile(path, `${JSON.stringify(ok)}\n\n${JSON.stringify({ ...ok, id: "b" })}\n`);
    const tasks = await loadTasks(path);
    expect(tasks.map((t) => t.id)).toEqual(["a", "b"]);
    expect(tasks[0]).toMatchObject({ checklists: [], examples: [], system: "" });
  });

  it("names the line and the field", () => {
    const bad = { ...ok, id: "b", user_turns: [] };
    expect(() => parseTasks(`${JSON.stringify(ok)}\n${JSON.stringify(bad)}`, "x.jsonl")).toThrow(
      /x\.jsonl:2: field user_turns/,
    );
    const badRule = { ...ok, checklists: [[[{ question: "q", rule: { call: 3 } }]]] };
    expect(() => parseTasks(JSON.stringify(badRule), "y")).toThrow(/y:1: field checklists\.0\.0\.0\.rule/);
    expect(() => parseTasks("{nope", "z")).toThrow(/z:1: not valid JSON/);
    expect(() => parseTasks(`${JSON.stringify(ok)}\n${JSON.stringify(ok)}`, "w")).toThrow(
      /w:2: field id: duplicate/,
    );
  });

  it("a missing file is INVALID_TASK_FILE", async () => {
    await expect(loadTasks("/nonexistent/tasks.jsonl")).rejects.toMatchObject({ code: "INVALID_TASK_FILE" });
  });
});
