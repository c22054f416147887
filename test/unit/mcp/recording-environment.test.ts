import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EnvaceError } from "../../../src/core/errors.js";
import type { ToolCall } from "../../../src/core/messages.js";
import { ExampleZ } from "../../../src/core/task.js";
import type { ToolResult } from "../../../src/core/tools.js";
import type { Environment } from "../../../src/envs/env.js";
import { ExampleLog, jsonlFileSink, recordingEnvironment } from "../../../src/envs/mcp/index.js";

/** An environment whose answers are fixed per tool name. */
function scriptedEnv(answers: Record<string, ToolResult>): Environment & { calls: ToolCall[] } {
  const calls: ToolCall[] = [];
  return {
    calls,
    tools: () => [],
    snapshot: () => ({ n: calls.length }),
    hash: () => String(calls.length),
    async call(call) {
      calls.push(call);
      return (
        answers[call.name] ?? {
          ok: false,
          error: new EnvaceError("TOOL_NOT_AVAILABLE", `Tool '${call.name}' not found`),
        }
      );
    },
  };
}

const answers: Record<string, ToolResult> = {
  json: { ok: true, content: '{"id": 7, "tags": ["a"]}' },
  text: { ok: true, content: "plain words" },
  number: { ok: true, content: "42" },
};

describe("recordingEnvironment", () => {
  it("records each real call as an example: JSON parsed, text kept, errors as 'Error: …'", async () => {
    const inner = scriptedEnv(answers);
    const log = new ExampleLog();
    const env = recordingEnvironment(inner, log);
    const r = await env.call({ id: "1", name: "json", arguments: { q: 1 } });
    expect(r).toEqual(answers.json); // passes the result through unchanged
    await env.call({ id: "2", name: "text", arguments: {} });
    await env.call({ id: "3", name: "number", arguments: {} });
    await env.call({ id: "4", name: "missing", arguments: { x: "y" } });
    expect(log.examples).toEqual([
      { name: "json", arguments: { q: 1 }, result: { id: 7, tags: ["a"] } },
      { name: "text", arguments: {}, result: "plain words" },
      { name: "number", arguments: {}, result: "42" },
      { name: "missing", arguments: { x: "y" }, result: "Error: Tool 'missing' not found" },
    ]);
    expect(inner.calls).toHaveLength(4);
    expect(env.hash()).toBe("4");
    for (const line of log.toJsonl().trimEnd().split("\n")) {
      expect(ExampleZ.safeParse(JSON.parse(line)).success).toBe(true);
    }
  });

  it("can leave errors out", async () => {
    const log = new ExampleLog();
    const env = recordingEnvironment(scriptedEnv(answers), log, { includeErrors: false });
    await env.call({ id: "1", name: "missing", arguments: {} });
    await env.call({ id: "2", name: "text", arguments: {} });
    expect(log.examples.map((e) => e.name)).toEqual(["text"]);
  });

  it("appends examples to a JSONL file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-rec-"));
    try {
      const path = join(dir, "sub", "examples.jsonl");
      const env = recordingEnvironment(scriptedEnv(answers), jsonlFileSink(path));
      await env.call({ id: "1", name: "json", arguments: {} });
      await env.call({ id: "2", name: "text", arguments: {} });
      const lines = readFileSync(path, "utf8").trimEnd().split("\n");
      expect(lines.map((l) => ExampleZ.parse(JSON.parse(l)).name)).toEqual(["json", "text"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
