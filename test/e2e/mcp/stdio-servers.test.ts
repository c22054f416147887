import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ExampleZ } from "../../../src/core/task.js";
import {
  connectMcpStdio,
  ExampleLog,
  jsonlFileSink,
  recordingEnvironment,
  type McpEnvironment,
} from "../../../src/envs/mcp/index.js";
import { isAlive } from "../processes.js";
import { FILESYSTEM_SERVER, MEMORY_SERVER } from "./servers.js";

let dir: string;
let env: McpEnvironment | undefined;
beforeAll(() => {
  // realpath: on macOS /tmp is a symlink and the server compares resolved paths.
  dir = realpathSync(mkdtempSync(join(tmpdir(), "envace-mcp-")));
});
afterEach(async () => {
  await env?.close();
  env = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const call = (name: string, args: Record<string, unknown>) => env!.call({ id: name, name, arguments: args });

describe("@modelcontextprotocol/server-filesystem over stdio", () => {
  const start = async (sub: string) => {
    const root = join(dir, sub);
    execFileSync("mkdir", ["-p", root]);
    env = await connectMcpStdio({ command: process.execPath, args: [FILESYSTEM_SERVER, root] });
    return root;
  };

  it("lists its tools as envace schemas", async () => {
    await start("list");
    const byName = new Map(env!.tools().map((t) => [t.name, t]));
    expect([...byName.keys()]).toEqual(
      expect.arrayContaining(["read_text_file", "write_file", "list_directory"]),
    );
    expect(byName.get("write_file")!.parameters).toMatchObject({
      type: "object",
      properties: { path: { type: "string" }, content: { type: "string" } },
      required: expect.arrayContaining(["path", "content"]),
    });
  });

  it("writes a file, reads it back, and the file is really on disk", async () => {
    const root = await start("rw");
    const path = join(root, "note.txt");
    const wrote = await call("write_file", { path, content: "hello from envace" });
    expect(wrote.ok).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("hello from envace");
    expect(await call("read_text_file", { path })).toEqual({ ok: true, content: "hello from envace" });
    expect(env!.snapshot().calls.map((c) => c.name)).toEqual(["write_file", "read_text_file"]);
  });

  it("maps server-side failures to tool errors and keeps going", async () => {
    const root = await start("errors");
    const missing = await call("read_text_file", { path: join(root, "absent.txt") });
    expect(missing.ok).toBe(false);
    if (!missing.ok) {
      expect(missing.error.code).toBe("TOOL_EXECUTION_ERROR");
      expect(missing.error.message).toContain("ENOENT");
    }
    const outside = await call("read_text_file", { path: join(dir, "elsewhere.txt") });
    expect(outside.ok).toBe(false);
    if (!outside.ok) expect(outside.error.message).toMatch(/outside allowed directories/);
    const badArgs = await call("read_text_file", { path: 42 });
    expect(badArgs.ok).toBe(false);
    if (!badArgs.ok) expect(badArgs.error.code).toBe("INVALID_PARAMETERS");
    const unknown = await call("no_such_tool", {});
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.code).toBe("TOOL_NOT_AVAILABLE");
    expect((await call("list_allowed_directories", {})).ok).toBe(true);
  });

  it("recovers from a server killed during a call: that call fails with MCP_ERROR, the next one restarts it", async () => {
    const root = await start("kill");
    // A read of a FIFO blocks until someone writes to it, so the call is certainly in flight.
    const fifo = join(root, "pipe");
    execFileSync("mkfifo", [fifo]);
    const firstPid = env!.pid!;
    const pending = call("read_text_file", { path: fifo });
    process.kill(firstPid, "SIGKILL");
    const died = await pending;
    expect(died.ok).toBe(false);
    if (!died.ok) {
      expect(died.error.code).toBe("MCP_ERROR");
      expect(died.error.message).toContain("restarted on the next call");
    }
    const after = await call("list_allowed_directories", {});
    expect(after).toEqual({ ok: true, content: `Allowed directories:\n${root}` });
    expect(env!.restarts).toBe(1);
    expect(env!.pid).not.toBe(firstPid);
  });

  it("stops the server process on close (no orphan)", async () => {
    await start("close");
    const pid = env!.pid!;
    expect(isAlive(pid)).toBe(true);
    await env!.close();
    expect(isAlive(pid)).toBe(false);
  });
});

describe("@modelcontextprotocol/server-memory over stdio", () => {
  const start = (memoryFile: string) =>
    connectMcpStdio({
      command: process.execPath,
      args: [MEMORY_SERVER],
      env: { MEMORY_FILE_PATH: join(dir, memoryFile) },
    });

  it("creates entities and reads the graph back; the recorder keeps both as task examples", async () => {
    env = await start("graph.jsonl");
    const examplesPath = join(dir, "examples.jsonl");
    const log = new ExampleLog();
    const fileSink = jsonlFileSink(examplesPath);
    const recorded = recordingEnvironment(env, { record: (e) => (log.record(e), fileSink.record(e)) });
    const created = await recorded.call({
      id: "1",
      name: "create_entities",
      arguments: {
        entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
      },
    });
    expect(created.ok).toBe(true);
    const graph = await recorded.call({ id: "2", name: "read_graph", arguments: {} });
    expect(graph.ok).toBe(true);
    if (graph.ok) {
      expect(JSON.parse(graph.content)).toEqual({
        entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
        relations: [],
      });
    }
    expect(log.examples[1]).toEqual({
      name: "read_graph",
      arguments: {},
      result: {
        entities: [{ name: "Ada", entityType: "person", observations: ["wrote the first program"] }],
        relations: [],
      },
    });
    const lines = readFileSync(examplesPath, "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    for (const l of lines) expect(ExampleZ.safeParse(JSON.parse(l)).success).toBe(true);
  });

  it("after a kill while idle: one MCP_ERROR, then a restarted server that still has its persisted graph", async () => {
    env = await start("restart.jsonl");
    const created = await call("create_entities", {
      entities: [{ name: "Grace", entityType: "person", observations: [] }],
    });
    expect(created.ok).toBe(true);
    const pid = env.pid!;
    process.kill(pid, "SIGKILL");
    // Wait for the client to notice the exit rather than for a fixed time.
    await new Promise<void>((resolve) => {
      const poll = () => (env!.pid === null ? resolve() : setTimeout(poll, 20));
      poll();
    });
    const first = await call("read_graph", {});
    expect(first.ok).toBe(false);
    if (!first.ok) {
      expect(first.error.code).toBe("MCP_ERROR");
      expect(first.error.message).toContain("was not executed");
    }
    const second = await call("search_nodes", { query: "Grace" });
    expect(second.ok).toBe(true);
    if (second.ok)
      expect(JSON.parse(second.content).entities.map((e: { name: string }) => e.name)).toEqual(["Grace"]);
    expect(env.pid).not.toBe(pid);
    expect(env.restarts).toBe(1);
  });
});
