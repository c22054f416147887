import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TaskCheck } from "../../../src/tasks/index.js";
import { MEMORY_SERVER, REPO_ROOT } from "../mcp/servers.js";
import { envaceExec } from "../../cli.js";

const check = async (file: string) => {
  const r = await envaceExec(["tasks", "check", "--connect", "--json", file]).catch(
    (e: { stdout: string }) => e,
  );
  return JSON.parse(r.stdout) as { ok: boolean; files: Array<{ tasks: TaskCheck[] }> };
};

describe("envace tasks check --connect", () => {
  it("compares the tasks' tools with the real MCP server's", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-connect-"));
    const env = {
      kind: "mcp",
      command: process.execPath,
      args: [MEMORY_SERVER],
      env: { MEMORY_FILE_PATH: "${EPISODE_DIR}/m.jsonl" },
    };
    const [line] = readFileSync(join(REPO_ROOT, "examples/tasks/memory.jsonl"), "utf8").split("\n");
    const task = { ...(JSON.parse(line!) as { tools: unknown[] }), env };
    const same = join(dir, "same.jsonl");
    writeFileSync(same, JSON.stringify(task) + "\n");
    expect((await check(same)).ok).toBe(true);

    // A renamed tool and a drifted schema: the recorded task no longer matches the server.
    const tools = structuredClone(task.tools) as Array<{ name: string; parameters: Record<string, unknown> }>;
    tools[8]!.name = "open_node";
    tools[7]!.parameters = { type: "object", properties: {} };
    const drift = join(dir, "drift.jsonl");
    writeFileSync(drift, JSON.stringify({ ...task, tools }) + "\n");
    const r = await check(drift);
    expect(r.ok).toBe(false);
    expect(r.files[0]!.tasks[0]!.errors).toEqual(["tools: open_node is not a tool of the real environment"]);
    expect(r.files[0]!.tasks[0]!.warnings).toContain(
      "tools: search_nodes's schema differs from the real environment's",
    );
  });
});
