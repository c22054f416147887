import { toRow } from "../../../src/rollout/rows.js";
import { describe, expect, it } from "vitest";
import OpenAI from "openai";
import { OpenAIChatModel } from "../../../src/engines/index.js";
import { isEnvaceError } from "../../../src/core/errors.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";

const start = mockServersClosedAfterEach();

describe("OpenAIChatModel", () => {
  it("sends the converted request and reads text, token ids, prompt ids and logprobs", async () => {
    const server = await start({
      handler: () => ({ content: "hi there", tokenIds: [5, 6, 7], logprobs: [-0.1, -0.2, -0.3] }),
    });
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", returnTokenIds: true });
    const res = await model.chat({
      messages: [{ role: "user", content: "hello" }],
      tools: [{ name: "t", description: "d", parameters: { type: "object", properties: {} } }],
      temperature: 0.7,
      topP: 0.9,
      maxTokens: 32,
      n: 1,
      seed: 3,
      stop: ["</s>"],
      responseSchema: { name: "verdict", schema: { type: "object" } },
    });
    expect(res.samples).toEqual([
      { text: "hi there", tokenIds: [5, 6, 7], logprobs: [-0.1, -0.2, -0.3], finishReason: "stop" },
    ]);
    expect(res.promptTokenIds).toEqual(Array.from("hello", (c) => c.codePointAt(0)));
    // the server's model name travels with the result (vLLM rollouts: the policy version)
    expect(res.model).toBe("m");
    expect(toRow("act", 0, res, res.samples[0]!).policyVersion).toBe("m");
    expect(res.usage).toEqual({ promptTokens: 5, completionTokens: 3 });
    const body = server.requests[0]!.body;
    expect(body).toMatchObject({
      model: "m",
      messages: [{ role: "user", content: "hello" }],
      tools: [{ type: "function", function: { name: "t" } }],
      temperature: 0.7,
      top_p: 0.9,
      max_tokens: 32,
      n: 1,
      seed: 3,
      stop: ["</s>"],
      response_format: { type: "json_schema", json_schema: { name: "verdict", schema: { type: "object" } } },
      return_token_ids: true,
      logprobs: true,
    });
  });

  it("does not ask for token ids unless told, and merges extraBody", async () => {
    const server = await start();
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", extraBody: { top_k: 5 } });
    const res = await model.chat({ messages: [{ role: "user", content: "x" }] });
    expect(res.samples[0]!.text).toBe("echo: x");
    expect(res.samples[0]!.tokenIds).toBeUndefined();
    expect(server.requests[0]!.body.return_token_ids).toBeUndefined();
    expect(server.requests[0]!.body.top_k).toBe(5);
  });

  it("returns n samples in index order with parsed tool calls (bad JSON kept raw)", async () => {
    const server = await start({
      handler: () => ({
        choices: [
          { content: null, toolCalls: [{ id: "c1", name: "lookup", arguments: { id: 7 } }] },
          { content: "", toolCalls: [{ id: "c2", name: "lookup", arguments: '{"id": 7' }] },
        ],
      }),
    });
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m" });
    const res = await model.chat({ messages: [{ role: "user", content: "q" }], n: 2 });
    expect(res.samples.map((s) => s.toolCalls)).toEqual([
      [{ id: "c1", name: "lookup", arguments: { id: 7 } }],
      [{ id: "c2", name: "lookup", arguments: { __raw: '{"id": 7' } }],
    ]);
    expect(res.samples[0]!.text).toBe("");
    expect(res.samples[0]!.finishReason).toBe("tool_calls");
  });

  it("turns a 502 that persists through retries into ENDPOINT_ERROR with the status", async () => {
    const server = await start({ failures: () => 502 });
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", maxRetries: 1 });
    const err = await model.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect((err as { details: { status: number; retryable: boolean } }).details).toMatchObject({
      status: 502,
      retryable: true,
    });
    expect(server.requests.length).toBe(2); // first try + one retry by the openai client
  });

  it("marks 4xx as not retryable and does not retry it", async () => {
    const server = await start({ handler: () => ({ status: 400, message: "bad tool schema" }) });
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", maxRetries: 2 });
    const err = await model.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect((err as Error).message).toContain("bad tool schema");
    expect((err as { details: { retryable: boolean; status: number } }).details).toMatchObject({
      status: 400,
      retryable: false,
    });
    expect(server.requests.length).toBe(1);
  });

  it("reports a dead endpoint and a timeout as retryable ENDPOINT_ERRORs without a status", async () => {
    const dead = await start();
    const deadURL = dead.baseURL;
    await dead.close();
    const m1 = new OpenAIChatModel({ baseURL: deadURL, model: "m", maxRetries: 0 });
    const e1 = await m1.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(isEnvaceError(e1, "ENDPOINT_ERROR")).toBe(true);
    expect((e1 as { details: { retryable: boolean; status?: number } }).details).toEqual({
      endpoint: deadURL,
      retryable: true,
    });

    const hang = await start({ failures: () => "hang" });
    const m2 = new OpenAIChatModel({ baseURL: hang.baseURL, model: "m", maxRetries: 0, timeoutMs: 200 });
    const e2 = await m2.chat({ messages: [{ role: "user", content: "x" }] }).catch((e: unknown) => e);
    expect(isEnvaceError(e2, "ENDPOINT_ERROR")).toBe(true);
    expect((e2 as Error).message).toMatch(/timed out/);
  });

  it("passes a caller's abort through unchanged", async () => {
    const server = await start({ failures: () => "hang" });
    const model = new OpenAIChatModel({ baseURL: server.baseURL, model: "m", maxRetries: 0 });
    const ac = new AbortController();
    const p = model.chat({ messages: [{ role: "user", content: "x" }] }, { signal: ac.signal });
    ac.abort();
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIUserAbortError);
  });
});
