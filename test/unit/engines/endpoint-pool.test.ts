import { describe, expect, it } from "vitest";
import { EndpointPool, OpenAIChatModel, backoffDelay } from "../../../src/engines/index.js";
import { isEnvaceError } from "../../../src/core/errors.js";
import type { MockOpenAIServer } from "../../../src/testing/index.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";

const start = mockServersClosedAfterEach();
const endpoint = (s: { baseURL: string }) =>
  new OpenAIChatModel({ baseURL: s.baseURL, model: "m", maxRetries: 0 });
const ask = { messages: [{ role: "user" as const, content: "hi" }] };

describe("backoffDelay", () => {
  it("doubles per attempt, stays within [d/2, d] and respects the cap", () => {
    expect(backoffDelay(0, 100, 10_000, () => 0)).toBe(50);
    expect(backoffDelay(0, 100, 10_000, () => 1)).toBe(100);
    expect(backoffDelay(3, 100, 10_000, () => 1)).toBe(800);
    expect(backoffDelay(10, 100, 1000, () => 1)).toBe(1000);
    expect(backoffDelay(10, 100, 1000, () => 0)).toBe(500);
  });
});

describe("EndpointPool", () => {
  it("retries 5xx with growing backoff and then succeeds", async () => {
    const server = await start({ failures: { 0: 503, 1: 502, 2: 500 } });
    const delays: number[] = [];
    const pool = new EndpointPool([endpoint(server)], {
      retries: 3,
      baseDelayMs: 40,
      maxDelayMs: 10_000,
      onRetry: (i) => delays.push(i.delayMs),
    });
    const res = await pool.chat(ask);
    expect(res.samples[0]!.text).toBe("echo: hi");
    expect(server.requests.map((r) => r.outcome)).toEqual([503, 502, 500, 200]);
    expect(delays).toHaveLength(3);
    delays.forEach((d, k) => {
      expect(d).toBeGreaterThanOrEqual((40 * 2 ** k) / 2);
      expect(d).toBeLessThanOrEqual(40 * 2 ** k);
    });
    // the server saw the waits: each retry arrived no earlier than its backoff delay allowed
    for (let k = 0; k < 3; k++) {
      const gap = server.requests[k + 1]!.receivedAt - server.requests[k]!.receivedAt;
      expect(gap).toBeGreaterThanOrEqual(Math.floor(delays[k]!) - 2);
    }
    expect(pool.stats()).toEqual({ calls: 1, retries: 3, failovers: 0, failures: 0, inFlight: 0 });
  });

  it("gives up after `retries` and rethrows the endpoint error", async () => {
    const server = await start({ failures: () => 503 });
    const pool = new EndpointPool([endpoint(server)], { retries: 2, baseDelayMs: 5 });
    const err = await pool.chat(ask).catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect(server.requests).toHaveLength(3);
    expect(pool.stats()).toMatchObject({ calls: 1, retries: 2, failures: 1 });
  });

  it("does not retry a 4xx", async () => {
    const server = await start({ failures: () => 422 });
    const pool = new EndpointPool([endpoint(server)], { retries: 3, baseDelayMs: 5 });
    const err = await pool.chat(ask).catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect(server.requests).toHaveLength(1);
    expect(pool.stats()).toMatchObject({ retries: 0, failures: 1 });
  });

  it("fails over from a failing endpoint to a healthy one", async () => {
    const bad = await start({ failures: () => 502 });
    const good = await start({ handler: () => "from good" });
    const pool = new EndpointPool([endpoint(bad), endpoint(good)], { retries: 2, baseDelayMs: 5 });
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await pool.chat(ask));
    expect(results.every((r) => r.samples[0]!.text === "from good")).toBe(true);
    expect(bad.requests.length).toBeGreaterThanOrEqual(1);
    const s = pool.stats();
    expect(s.failures).toBe(0);
    // every failure on `bad` moved to `good`
    expect(s.failovers).toBe(bad.requests.length);
    expect(s.retries).toBe(bad.requests.length);
  });

  it("fails over from a dead endpoint (connection refused) and from a hung one (timeout)", async () => {
    const dead = await start();
    const deadURL = dead.baseURL;
    await dead.close();
    const hung = await start({ failures: () => "hang" });
    const good = await start();
    const pool = new EndpointPool(
      [
        new OpenAIChatModel({ baseURL: deadURL, model: "m", maxRetries: 0 }),
        new OpenAIChatModel({ baseURL: hung.baseURL, model: "m", maxRetries: 0, timeoutMs: 150 }),
        endpoint(good),
      ],
      { retries: 3, baseDelayMs: 5 },
    );
    const res = await pool.chat(ask); // dead → hung (times out) → good
    expect(res.samples[0]!.text).toBe("echo: hi");
    expect(hung.requests).toHaveLength(1);
    expect(pool.stats()).toMatchObject({ retries: 2, failovers: 2, failures: 0 });
  });

  it("keeps at most maxInFlight calls in flight", async () => {
    // each request is held until three are in flight, so that the limit is reached without timing luck
    const server: MockOpenAIServer = await start({
      handler: async () => {
        while (server.inFlight < 3 && server.requests.length < 12) await new Promise((r) => setTimeout(r, 2));
        return "ok";
      },
    });
    const pool = new EndpointPool([endpoint(server)], { maxInFlight: 3 });
    const seen: number[] = [];
    const calls = Array.from({ length: 12 }, async () => {
      const r = await pool.chat(ask);
      seen.push(pool.stats().inFlight);
      return r;
    });
    const results = await Promise.all(calls);
    expect(results).toHaveLength(12);
    expect(server.requests).toHaveLength(12);
    expect(server.maxInFlight).toBe(3);
    expect(Math.max(...seen)).toBeLessThanOrEqual(3);
    expect(pool.stats()).toMatchObject({ calls: 12, inFlight: 0, failures: 0 });
  });

  it("sends calls to the endpoint with the fewest in flight, so a stuck one gets no queue", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = await start({ handler: async () => (await gate, "slow") });
    const fast = await start({ handler: () => "fast" });
    const pool = new EndpointPool([endpoint(slow), endpoint(fast)]);
    const stuck = pool.chat(ask); // ties go round-robin: the first call lands on `slow`
    while (slow.requests.length === 0) await new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < 5; i++) expect((await pool.chat(ask)).samples[0]!.text).toBe("fast");
    expect(slow.requests).toHaveLength(1);
    expect(fast.requests).toHaveLength(5);
    release();
    expect((await stuck).samples[0]!.text).toBe("slow");
  });

  it("stops waiting when the caller aborts", async () => {
    const server = await start({ failures: () => 503 });
    let waiting = false;
    const pool = new EndpointPool([endpoint(server)], {
      retries: 10,
      baseDelayMs: 10_000,
      onRetry: () => (waiting = true),
    });
    const ac = new AbortController();
    const p = pool.chat(ask, { signal: ac.signal });
    while (!waiting) await new Promise((r) => setTimeout(r, 5));
    ac.abort(new Error("caller gave up"));
    await expect(p).rejects.toThrow("caller gave up");
    expect(server.requests).toHaveLength(1);
  });
});
