import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { connectMcpHttp, type McpEnvironment } from "../../../src/envs/mcp/index.js";
import { makeFakeServer } from "../../unit/mcp/fake-mcp-server.js";
import { REPO_ROOT } from "./servers.js";

/** An in-process MCP server on 127.0.0.1 with the SDK's stateful streamable HTTP transport. */
async function startHttpServer(
  port = 0,
): Promise<{ url: string; port: number; sessions: Map<string, unknown>; stop(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const server: Server = createServer((req, res) => {
    void (async () => {
      const sid = req.headers["mcp-session-id"];
      let transport = typeof sid === "string" ? sessions.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === "string") {
          res.writeHead(404).end();
          return;
        }
        const fresh = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void sessions.set(id, fresh),
        });
        fresh.onclose = () => {
          if (fresh.sessionId) sessions.delete(fresh.sessionId);
        };
        await makeFakeServer().connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${actual}/mcp`,
    port: actual,
    sessions,
    async stop() {
      for (const t of sessions.values()) await t.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

let env: McpEnvironment | undefined;
let stopServer: (() => Promise<void>) | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
  await stopServer?.();
  stopServer = undefined;
});

describe("MCP over streamable HTTP", () => {
  it("lists tools, calls them and ends its session on close", async () => {
    const srv = await startHttpServer();
    stopServer = srv.stop;
    env = await connectMcpHttp({ url: srv.url });
    expect(env.tools().map((t) => t.name)).toContain("echo");
    expect(srv.sessions.size).toBe(1);
    expect(await env.call({ id: "1", name: "echo", arguments: { text: "over http" } })).toEqual({
      ok: true,
      content: "over http",
    });
    expect(await env.call({ id: "2", name: "count", arguments: {} })).toEqual({
      ok: true,
      content: '{"count":1}',
    });
    const failed = await env.call({ id: "3", name: "fail", arguments: {} });
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error.code).toBe("TOOL_EXECUTION_ERROR");
    await env.close();
    expect(srv.sessions.size).toBe(0);
  });

  it("returns MCP_ERROR while the server is down and reconnects once it is back", async () => {
    let srv = await startHttpServer();
    env = await connectMcpHttp({ url: srv.url });
    await srv.stop();
    const down = await env.call({ id: "1", name: "echo", arguments: { text: "x" } });
    expect(down.ok).toBe(false);
    if (!down.ok) expect(down.error.code).toBe("MCP_ERROR");
    srv = await startHttpServer(srv.port);
    stopServer = srv.stop;
    expect(await env.call({ id: "2", name: "echo", arguments: { text: "back" } })).toEqual({
      ok: true,
      content: "back",
    });
    expect(env.restarts).toBe(1);
  });

  it("fails to open with MCP_ERROR when nothing listens", async () => {
    const srv = await startHttpServer();
    await srv.stop();
    await expect(connectMcpHttp({ url: srv.url })).rejects.toMatchObject({ code: "MCP_ERROR" });
  });

  it("envace mcp tools --json --url lists the tools and ends the session", async () => {
    const srv = await startHttpServer();
    stopServer = srv.stop;
    // Async execFile: the server runs in this process and must keep answering.
    const { stdout } = await promisify(execFile)(
      "npx",
      ["tsx", "src/cli/main.ts", "mcp", "tools", "--json", "--url", srv.url],
      { cwd: REPO_ROOT },
    );
    const tools = JSON.parse(stdout) as { name: string }[];
    expect(tools.map((t) => t.name)).toEqual(["echo", "count", "fail", "picture", "crash"]);
    expect(srv.sessions.size).toBe(0);
  });
});
