import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { McpEnvironment, transportConnector } from "../../../src/envs/mcp/index.js";
import { makeFakeServer } from "./fake-mcp-server.js";

/** A connector that starts a fresh in-memory fake server per session, and counts sessions. */
function fakeConnector() {
  const state = { sessions: 0, serverSide: null as InMemoryTransport | null };
  const connector = transportConnector("fake", async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    state.sessions += 1;
    state.serverSide = serverSide;
    await makeFakeServer(() => void serverSide.close()).connect(serverSide);
    return clientSide;
  });
  return { connector, state };
}

let env: McpEnvironment | undefined;
afterEach(async () => {
  await env?.close();
  env = undefined;
});

describe("McpEnvironment (in-memory SDK server)", () => {
  it("lists the server's tools as envace schemas", async () => {
    env = await McpEnvironment.open(fakeConnector().connector);
    const names = env.tools().map((t) => t.name);
    expect(names).toEqual(["echo", "count", "fail", "picture", "crash"]);
    const echo = env.tools().find((t) => t.name === "echo")!;
    expect(echo.description).toBe("Echoes the text.");
    expect(echo.parameters).toMatchObject({ type: "object", properties: { text: { type: "string" } } });
  });

  it("calls tools and turns content blocks into one string", async () => {
    env = await McpEnvironment.open(fakeConnector().connector);
    expect(await env.call({ id: "1", name: "echo", arguments: { text: "hi" } })).toEqual({
      ok: true,
      content: "hi",
    });
    const pic = await env.call({ id: "2", name: "picture", arguments: {} });
    expect(pic.ok).toBe(true);
    if (pic.ok)
      expect(pic.content).toBe('a red dot:\n{"type":"image","mimeType":"image/png","base64Chars":8}');
  });

  it("maps an isError result, bad arguments and an unknown tool to tool errors", async () => {
    env = await McpEnvironment.open(fakeConnector().connector);
    const failed = await env.call({ id: "1", name: "fail", arguments: {} });
    expect(failed.ok).toBe(false);
    if (!failed.ok) {
      expect(failed.error.code).toBe("TOOL_EXECUTION_ERROR");
      expect(failed.error.message).toContain("the fail tool failed");
    }
    const bad = await env.call({ id: "2", name: "echo", arguments: { text: 3 } });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe("INVALID_PARAMETERS");
    const unknown = await env.call({ id: "3", name: "nope", arguments: {} });
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error.code).toBe("TOOL_NOT_AVAILABLE");
  });

  it("logs the calls that reached the server as its snapshot, and hashes the log", async () => {
    env = await McpEnvironment.open(fakeConnector().connector);
    const empty = env.hash();
    await env.call({ id: "1", name: "count", arguments: {} });
    await env.call({ id: "2", name: "nope", arguments: {} }); // never reaches the server
    expect(env.snapshot()).toEqual({
      calls: [{ name: "count", arguments: {}, ok: true, content: '{"count":1}' }],
    });
    expect(env.hash()).not.toBe(empty);
    expect(env.hash()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reports a server that dies mid-call once, then restarts it on the next call", async () => {
    const { connector, state } = fakeConnector();
    env = await McpEnvironment.open(connector);
    await env.call({ id: "1", name: "count", arguments: {} });
    const crashed = await env.call({ id: "2", name: "crash", arguments: {} });
    expect(crashed.ok).toBe(false);
    if (!crashed.ok) expect(crashed.error.code).toBe("MCP_ERROR");
    // A fresh server: its counter starts again.
    expect(await env.call({ id: "3", name: "count", arguments: {} })).toEqual({
      ok: true,
      content: '{"count":1}',
    });
    expect(state.sessions).toBe(2);
    expect(env.restarts).toBe(1);
  });

  it("reports a server that died while idle on the next call without sending it", async () => {
    const { connector, state } = fakeConnector();
    env = await McpEnvironment.open(connector);
    await state.serverSide!.close();
    const next = await env.call({ id: "1", name: "count", arguments: {} });
    expect(next.ok).toBe(false);
    if (!next.ok) expect(next.error.message).toContain("not executed");
    expect(env.snapshot().calls).toHaveLength(0);
    expect((await env.call({ id: "2", name: "count", arguments: {} })).ok).toBe(true);
  });

  it("stops restarting after maxRestarts", async () => {
    const { connector, state } = fakeConnector();
    env = await McpEnvironment.open(connector, { maxRestarts: 1 });
    await env.call({ id: "1", name: "crash", arguments: {} });
    expect((await env.call({ id: "2", name: "count", arguments: {} })).ok).toBe(true);
    await env.call({ id: "3", name: "crash", arguments: {} });
    const gaveUp = await env.call({ id: "4", name: "count", arguments: {} });
    expect(gaveUp.ok).toBe(false);
    if (!gaveUp.ok) {
      expect(gaveUp.error.code).toBe("MCP_ERROR");
      expect(gaveUp.error.message).toContain("giving up");
    }
    expect(state.sessions).toBe(2);
  });

  it("returns MCP_ERROR after close", async () => {
    env = await McpEnvironment.open(fakeConnector().connector);
    await env.close();
    const r = await env.call({ id: "1", name: "count", arguments: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe("MCP_ERROR");
  });
});
