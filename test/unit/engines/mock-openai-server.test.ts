import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { mockServersClosedAfterEach } from "../../mock-servers.js";

const start = mockServersClosedAfterEach();

describe("startMockOpenAIServer", () => {
  it("speaks /v1/models and /v1/chat/completions to the official client, n choices included", async () => {
    const server = await start({ model: "judge-1", handler: (body) => `seen ${body.messages.length}` });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "x", maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(["judge-1"]);
    const res = await client.chat.completions.create({
      model: "judge-1",
      n: 3,
      messages: [
        { role: "system", content: "s" },
        { role: "user", content: "u" },
      ],
    });
    expect(res.choices.map((c) => c.message.content)).toEqual(["seen 2", "seen 2", "seen 2"]);
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]!.outcome).toBe(200);
  });

  it("accepts a root URL without /v1, and sends raw bodies verbatim", async () => {
    const server = await start({ handler: () => ({ raw: { hello: "world" }, status: 201 }) });
    const res = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [] }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ hello: "world" });
  });

  it("injects failures by index: status codes and dropped connections; answers bad JSON with 400", async () => {
    const server = await start({ failures: { 0: 429, 1: "reset" } });
    const post = (body: string) => fetch(`${server.baseURL}/chat/completions`, { method: "POST", body });
    const msg = JSON.stringify({ messages: [{ role: "user", content: "a" }] });
    expect((await post(msg)).status).toBe(429);
    await expect(post(msg)).rejects.toThrow();
    expect((await post(msg)).status).toBe(200);
    expect((await post("{nope")).status).toBe(400);
    expect(server.requests.map((r) => r.outcome)).toEqual([429, "reset", 200]);
  });

  it("delays each request by latencyMs(i)", async () => {
    const server = await start({ latencyMs: (i) => 40 * (i + 1) });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "x", maxRetries: 0 });
    for (let k = 0; k < 2; k++)
      await client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "q" }] });
    server.requests.forEach((r, i) =>
      expect(r.respondedAt! - r.receivedAt).toBeGreaterThanOrEqual(40 * (i + 1) - 1),
    );
  });

  it("tracks requests in flight and their peak (async handlers can hold requests open)", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let allIn!: () => void;
    const allInGate = new Promise<void>((r) => (allIn = r));
    let arrived = 0;
    const server = await start({
      handler: async (_b, { index }) => {
        if (++arrived === 3) allIn();
        await allInGate; // all three are in flight together
        if (index === 0) await gate;
        return index === 0 ? "slow" : "fast";
      },
    });
    const client = new OpenAI({ baseURL: server.baseURL, apiKey: "x", maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: "m", messages: [{ role: "user", content: "q" }] });
    const slow = ask();
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    const fast = await Promise.all([ask(), ask()]);
    expect(fast.map((r) => r.choices[0]!.message.content)).toEqual(["fast", "fast"]);
    expect(server.inFlight).toBe(1);
    expect(server.maxInFlight).toBe(3);
    release();
    expect((await slow).choices[0]!.message.content).toBe("slow");
    expect(server.inFlight).toBe(0);
  });

  it("close() ends hung requests", async () => {
    const server = await start({ failures: () => "hang" });
    const p = fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ messages: [] }),
    });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 5));
    await server.close();
    await expect(p).rejects.toThrow();
  });
});
