import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isEnvaceError } from "../../../src/core/errors.js";
import type { ChatRequest } from "../../../src/core/model.js";
import { EndpointPool } from "../../../src/engines/endpoint-pool.js";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import { VllmRolloutEngine, type PublishedWeights } from "../../../src/engines/vllm-engine.js";
import { sessionKey } from "../../../src/engines/vllm-session.js";
import { startMockVllmServer, type MockVllmServer } from "../../../src/testing/mock-vllm-server.js";

const servers: MockVllmServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function twoServers(): Promise<[MockVllmServer, MockVllmServer]> {
  const a = await startMockVllmServer({ name: "A" });
  const b = await startMockVllmServer({ name: "B" });
  servers.push(a, b);
  return [a, b];
}

/** A published LoRA version on disk (the mock checks adapter_config.json like vLLM). */
function adapter(step: number, run = "run"): PublishedWeights {
  const root = mkdtempSync(join(tmpdir(), "envace-vllm-"));
  dirs.push(root);
  const path = join(root, `${run}@${step}`);
  mkdirSync(path);
  writeFileSync(join(path, "adapter_config.json"), "{}");
  return { version: `${run}@${step}`, path, step, format: "lora" };
}

const episode = (k: number, turn = 0): ChatRequest => ({
  messages: [
    { role: "system", content: "agent" },
    { role: "user", content: `task ${k}` },
    ...Array.from({ length: turn }, (_, t) => ({ role: "assistant" as const, content: `reply ${t}` })),
  ],
});

const engineFor = (ss: MockVllmServer[], extra = {}) =>
  new VllmRolloutEngine({
    endpoints: ss.map((s) => ({ baseURL: s.baseURL })),
    baseModel: "base",
    pool: { baseDelayMs: 5, maxDelayMs: 20, affinitySlack: 1000 },
    syncDelayMs: 5,
    ...extra,
  });

describe("VllmRolloutEngine (against vLLM-shaped mock servers)", () => {
  it("refuses to sample before any version was synced", async () => {
    const [a] = await twoServers();
    const err = await engineFor([a])
      .policy.chat(episode(0))
      .catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect(a.calls).toHaveLength(0);
  });

  it("hot-loads each LoRA version into every endpoint, then requests it by name", async () => {
    const [a, b] = await twoServers();
    const engine = engineFor([a, b]);
    const v1 = adapter(1);
    const r1 = await engine.sync(v1);
    expect(r1).toMatchObject({ version: "run@1", step: 1, failed: [], unloaded: [] });
    expect(r1.ready.sort()).toEqual([a.url, b.url].sort());
    for (const s of [a, b]) {
      expect(s.calls.filter((c) => c.path === "/v1/load_lora_adapter").map((c) => c.body)).toEqual([
        { lora_name: "run@1", lora_path: v1.path, load_inplace: true },
      ]);
    }
    const res = await engine.policy.chat(episode(3));
    expect(res.samples[0]!.text).toMatch(/^run@1\|[AB]\|task 3$/);
    const chat = [...a.calls, ...b.calls].find((c) => c.path === "/v1/chat/completions")!;
    expect(chat.body).toMatchObject({ model: "run@1", return_token_ids: true, logprobs: true });

    await engine.sync(adapter(2));
    const res2 = await engine.policy.chat(episode(3));
    expect(res2.samples[0]!.text).toMatch(/^run@2\|/);
    expect(engine.stats().callsByVersion).toEqual({ "run@1": 1, "run@2": 1 });
  });

  it("sends tools with tool_choice none (vLLM without a tool parser refuses auto)", async () => {
    const [a] = await twoServers();
    const engine = engineFor([a]);
    await engine.sync(adapter(1));
    const tools = [{ name: "get_order", description: "d", parameters: { type: "object", properties: {} } }];
    const res = await engine.policy.chat({ ...episode(1), tools });
    expect(res.samples[0]!.text).toMatch(/^run@1\|/);
    const chat = a.calls.find((c) => c.path === "/v1/chat/completions")!;
    expect(chat.body.tool_choice).toBe("none");
    expect(chat.body.tools).toHaveLength(1);
  });

  it("records the engine's exact token ids and logprobs (token in, token out)", async () => {
    const [a] = await twoServers();
    const engine = engineFor([a]);
    await engine.sync(adapter(1));
    const res = await engine.policy.chat(episode(7));
    const text = res.samples[0]!.text;
    const ids = Array.from(text, (c) => c.codePointAt(0)!);
    // the EOS id (0 in the mock) is in token_ids though not in the text: taken as sent, not re-tokenized
    expect(res.samples[0]!.tokenIds).toEqual([...ids, 0]);
    expect(res.samples[0]!.logprobs).toHaveLength(ids.length + 1);
    expect(res.samples[0]!.logprobs![1]).toBeCloseTo(-0.02);
    expect(res.promptTokenIds).toEqual(Array.from("system:agent\nuser:task 7", (c) => c.codePointAt(0)!));
  });

  it("replaces a republished version in place and unloads versions beyond keepLoaded", async () => {
    const [a, b] = await twoServers();
    const engine = engineFor([a, b], { keepLoaded: 2 });
    await engine.sync(adapter(1));
    await engine.sync(adapter(1)); // a resumed run republishes the same step: load_inplace replaces it
    await engine.sync(adapter(2));
    const r3 = await engine.sync(adapter(3));
    expect(r3.unloaded).toEqual(["run@1"]);
    // only the in-place replacement dropped the prefix cache (blocks of the old weights)
    expect(a.calls.filter((c) => c.path === "/reset_prefix_cache")).toHaveLength(1);
    for (const s of [a, b]) {
      expect([...s.adapters.keys()].sort()).toEqual(["run@2", "run@3"]);
      expect(s.calls.filter((c) => c.path === "/v1/unload_lora_adapter").map((c) => c.body)).toEqual([
        { lora_name: "run@1" },
      ]);
    }
  });

  it("keeps an episode on one endpoint (sticky sessions) and spreads episodes over both", async () => {
    const [a, b] = await twoServers();
    const engine = engineFor([a, b]);
    await engine.sync(adapter(1));
    const served = new Map<number, Set<string>>();
    for (let turn = 0; turn < 3; turn++) {
      await Promise.all(
        Array.from({ length: 16 }, async (_, k) => {
          const res = await engine.policy.chat(episode(k, turn));
          const who = res.samples[0]!.text.split("|")[1]!;
          served.set(k, (served.get(k) ?? new Set()).add(who));
        }),
      );
    }
    expect([...served.values()].every((s) => s.size === 1)).toBe(true);
    const onA = [...served.values()].filter((s) => s.has("A")).length;
    expect(onA).toBeGreaterThan(0);
    expect(onA).toBeLessThan(16);
  });

  it("fails over to another endpoint when one answers 5xx", async () => {
    const [a, b] = await twoServers();
    const engine = engineFor([a, b]);
    await engine.sync(adapter(1));
    a.down = true;
    const texts = await Promise.all(
      Array.from({ length: 8 }, (_, k) => engine.policy.chat(episode(k)).then((r) => r.samples[0]!.text)),
    );
    expect(texts.every((t) => t.includes("|B|"))).toBe(true);
    expect(engine.stats().failovers).toBeGreaterThan(0);
  });

  it("leaves an endpoint that cannot load the version out of rollouts until a later sync reaches it", async () => {
    const [a, b] = await twoServers();
    const engine = engineFor([a, b], { syncRetries: 1 });
    b.failNext("/v1/load_lora_adapter", 503, 2); // both attempts fail
    const r1 = await engine.sync(adapter(1));
    expect(r1.ready).toEqual([a.url]);
    expect(r1.failed.map((f) => f.endpoint)).toEqual([b.url]);
    expect(r1.failed[0]!.error).toMatch(/503/);
    for (let k = 0; k < 6; k++)
      expect((await engine.policy.chat(episode(k))).samples[0]!.text).toContain("|A|");
    expect(b.calls.some((c) => c.path === "/v1/chat/completions")).toBe(false);

    b.failNext("/v1/load_lora_adapter", 503, 1); // one transient failure: the retry succeeds
    const r2 = await engine.sync(adapter(2));
    expect(r2.ready.sort()).toEqual([a.url, b.url].sort());
  });

  it("keeps the previous version when no endpoint loads the new one", async () => {
    const [a] = await twoServers();
    const engine = engineFor([a], { syncRetries: 0 });
    await engine.sync(adapter(1));
    const missing: PublishedWeights = {
      version: "run@2",
      path: "/nonexistent/run@2",
      step: 2,
      format: "lora",
    };
    const err = await engine.sync(missing).catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect(String((err as Error).message)).toMatch(/No adapter found/);
    expect(engine.version?.version).toBe("run@1");
    expect((await engine.policy.chat(episode(0))).samples[0]!.text).toMatch(/^run@1\|/);
  });

  it("full weights: pause, reload from disk, resume on every endpoint; requests keep the base name", async () => {
    const [a, b] = await twoServers();
    const engine = engineFor([a, b]);
    const full: PublishedWeights = { version: "run@4", path: "/ck/run@4", step: 4, format: "full" };
    await engine.sync(full);
    for (const s of [a, b]) {
      expect(s.calls.map((c) => c.path)).toEqual(["/pause", "/collective_rpc", "/resume"]);
      expect(s.calls[1]!.body).toEqual({
        method: "reload_weights",
        kwargs: { weights_path: "/ck/run@4", is_checkpoint_format: true },
      });
      expect(s.reloads).toBe(1);
      expect(s.paused).toBe(false);
    }
    const res = await engine.policy.chat(episode(1));
    expect(res.samples[0]!.text).toMatch(/^base#1\|/);
  });
});

describe("sticky sessions", () => {
  it("keys a request by its first two messages", () => {
    expect(sessionKey(episode(1, 0))).toBe(sessionKey(episode(1, 4)));
    expect(sessionKey(episode(1))).not.toBe(sessionKey(episode(2)));
    expect(sessionKey({ messages: [{ role: "user", content: "x" }] })).toBeUndefined();
  });

  it("EndpointPool affinity sends a key home unless home is much busier than the others", async () => {
    const [a, b] = await twoServers();
    const models = [a, b].map(
      (s) => new OpenAIChatModel({ baseURL: s.baseURL, model: "base", maxRetries: 0 }),
    );
    const pool = new EndpointPool(models, { affinity: () => "same-key", affinitySlack: 2 });
    // sequential calls: home is never busy, so every call goes to the same server
    for (let i = 0; i < 5; i++) await pool.chat(episode(0));
    const first = a.calls.length > 0 ? a : b;
    expect(first.calls).toHaveLength(5);
    // 12 at once: home takes up to slack more than the other, the rest overflow
    await Promise.all(Array.from({ length: 12 }, () => pool.chat(episode(0))));
    const other = first === a ? b : a;
    expect(other.calls.length).toBeGreaterThan(0);
  });
});
