import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  startMockOpenAIServer,
  type MockChatBody,
  type MockOpenAIServer,
  type MockReply,
} from "../../../src/testing/index.js";
import { REHEARSAL_SYSTEM_FULL } from "../../../src/rollout/rehearsal-prompt.js";
import { SUMMARY_SYSTEM } from "../../../src/testtime/summary.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../../..");
const SUMMARY = "Plan: store Ada with create_entities; to answer, search_nodes for Ada.";
const ENTITY = {
  name: "Ada",
  entityType: "person",
  observations: ["works at the Analytical Engine Company"],
};

/** Stands in for the model: acts with OpenAI tool_calls, plays the tools when asked to rehearse, summarizes. */
function handler(body: MockChatBody): MockReply {
  const system = body.messages[0]?.content ?? "";
  if (system === REHEARSAL_SYSTEM_FULL) {
    const user = body.messages[1]?.content ?? "";
    const tool = /- name: (\S+)/.exec(user)?.[1];
    const value = tool === "create_entities" ? [ENTITY] : { entities: [ENTITY], relations: [] };
    return `<execution_result>\n${JSON.stringify(value)}\n</execution_result>`;
  }
  if (system === SUMMARY_SYSTEM) return SUMMARY;
  const last = body.messages[body.messages.length - 1]!;
  const remember = /Remember/.test(
    [...body.messages].reverse().find((m) => m.role === "user")?.content ?? "",
  );
  if (last.role === "user") {
    return remember
      ? { toolCalls: [{ name: "create_entities", arguments: { entities: [ENTITY] } }] }
      : { toolCalls: [{ name: "search_nodes", arguments: { query: "Ada" } }] };
  }
  if (remember) return "Noted.";
  return /Analytical Engine Company/.test(last.content ?? "")
    ? "Ada works at the Analytical Engine Company."
    : "I don't know.";
}

let server: MockOpenAIServer;
beforeAll(async () => {
  server = await startMockOpenAIServer({ handler });
});
afterAll(async () => {
  await server?.close();
});

describe("README: the test-time rehearsal example runs against @modelcontextprotocol/server-memory", () => {
  it("rehearses, commits each turn once for real, and makes no real call while rehearsing", async () => {
    const doc = readFileSync(join(root, "README.md"), "utf8");
    const code = [...doc.matchAll(/```ts\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .find((c) => c.includes("rehearseThenCommit"))!;
    const dir = mkdtempSync(join(tmpdir(), "envace-doc-"));
    const script = join(dir, "example.mts"); // an ES module, as in a "type": "module" project
    // the only change: "envace" resolves to this checkout's sources
    writeFileSync(
      script,
      code.replaceAll('from "envace"', `from ${JSON.stringify(join(root, "src", "index.ts"))}`),
    );
    const memoryFile = join(dir, "memory.jsonl");
    const { stdout } = await run("npx", ["tsx", script], {
      cwd: root,
      env: {
        ...process.env,
        OPENAI_BASE_URL: server.baseURL,
        MODEL: "mock-model",
        MEMORY_FILE_PATH: memoryFile,
        OPENAI_API_KEY: "none",
      },
      maxBuffer: 16 << 20,
    });
    expect(stdout).toContain("agent: Noted.  [1 real call(s)]");
    expect(stdout).toContain("agent: Ada works at the Analytical Engine Company.  [1 real call(s)]");
    expect(stdout).toMatch(/rehearsal: 4 attempts, \d+ tokens, 0 real calls while rehearsing/);

    // the real server got exactly the two committed calls' effect: one entity
    const graph = readFileSync(memoryFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { name?: string });
    expect(graph.filter((e) => e.name === "Ada")).toHaveLength(1);

    // through the official openai client: rehearse, summary and act requests; the summary reached the committed actor
    const bodies = server.requests.map((r) => r.body);
    const rehearseReqs = bodies.filter((b) => b.messages[0]?.content === REHEARSAL_SYSTEM_FULL);
    expect(rehearseReqs).toHaveLength(4);
    expect(bodies.filter((b) => b.messages[0]?.content === SUMMARY_SYSTEM)).toHaveLength(2);
    const committed = bodies.filter((b) => (b.messages[0]?.content ?? "").includes(SUMMARY));
    expect(committed).toHaveLength(4); // 2 turns × (tool call, reply)
    expect(committed.every((b) => Array.isArray(b.tools) && b.tools.length > 0)).toBe(true);
  }, 120_000);
});
