import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskZ } from "../../../src/core/task.js";
import { environmentForTask } from "../../../src/envs/task-environment.js";
import { makeFakeServer } from "../mcp/fake-mcp-server.js";

// A streamable-HTTP MCP server on 127.0.0.1: a fresh fake server (its own counter) per session.
const sessions = new Map<string, StreamableHTTPServerTransport>();
const server = createServer((req, res) => {
  void (async () => {
    const sid = req.headers["mcp-session-id"];
    let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
    if (!transport) {
      const fresh = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => void sessions.set(id, fresh),
      });
      await makeFakeServer().connect(fresh);
      transport = fresh;
    }
    await transport.handleRequest(req, res);
  })().catch(() => res.writeHead(500).end());
});
let url = "";
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  for (const t of sessions.values()) await t.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const task = (setup: Array<{ name: string; arguments: Record<string, unknown> }>) =>
  TaskZ.parse({ id: "h", domain: "d", tools: [], user_turns: ["hi"], env: { kind: "mcp", url, setup } });

describe("env.kind mcp over streamable HTTP", () => {
  it("each episode opens its own session and runs env.setup first", async () => {
    const setup = [
      { name: "count", arguments: {} },
      { name: "count", arguments: {} },
    ];
    for (let episode = 0; episode < 2; episode++) {
      const env = await environmentForTask(task(setup));
      const r = await env.call({ id: "c", name: "count", arguments: {} });
      await env.close?.();
      // Two setup calls, then ours: the count starts from the declared reset every episode.
      expect(r.ok && JSON.parse(r.content)).toEqual({ count: 3 });
    }
  });

  it("a failing setup call is an error naming it", async () => {
    await expect(environmentForTask(task([{ name: "fail", arguments: {} }]))).rejects.toThrow(
      /task h: env\.setup\.0 \(fail\) failed: .*the fail tool failed/,
    );
  });
});
