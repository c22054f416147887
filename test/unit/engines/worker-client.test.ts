import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WorkerClient, workerServeArgs } from "../../../src/engines/index.js";
import { isEnvaceError } from "../../../src/core/errors.js";

/** A stand-in worker: records each request, answers from a route table. */
async function fakeWorker(routes: Record<string, (body: unknown) => [number, unknown]>) {
  const seen: { path: string; body: unknown }[] = [];
  const server: Server = createServer((req, res) => {
    let data = "";
    req.on("data", (c: Buffer) => (data += c.toString()));
    req.on("end", () => {
      const body: unknown = data ? JSON.parse(data) : undefined;
      seen.push({ path: req.url ?? "", body });
      const [status, json] = routes[req.url ?? ""]?.(body) ?? [404, { detail: "Not Found" }];
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(json));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = () => new Promise<void>((r) => server.close(() => r()));
  closers.push(close);
  return { url, seen, close };
}
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

describe("WorkerClient", () => {
  it("maps camelCase calls to the snake_case wire format and back", async () => {
    const w = await fakeWorker({
      "/health": () => [200, { status: "ok", model: "tiny", step: 4, world_size: 1 }],
      "/v1/tokenize": () => [
        200,
        {
          token_ids: [1, 2, 3, 4, 5],
          spans: [
            { message: 0, role: "user", start: 0, end: 2 },
            { message: 1, role: "assistant", start: 2, end: 5, completion_start: 3 },
          ],
        },
      ],
      "/v1/train/forward_backward": () => [200, { loss: 1.25, metrics: { tokens: 3 } }],
      "/v1/train/optim_step": () => [200, { step: 5, grad_norm: 0.5 }],
      "/v1/train/save": (b) => [200, { path: (b as { path: string }).path, step: 5, optimizer: true }],
      "/v1/train/load": (b) => [200, { path: (b as { path: string }).path, step: 5, optimizer: false }],
    });
    const c = new WorkerClient(`${w.url}/v1/`); // a trailing /v1 is tolerated
    expect(c.baseURL).toBe(w.url);
    expect(await c.health()).toEqual({ status: "ok", model: "tiny", step: 4, world_size: 1 });
    const tok = await c.tokenize({
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "", toolCalls: [{ id: "1", name: "f", arguments: { a: 1 } }] },
      ],
      tools: [{ name: "f", description: "", parameters: { type: "object" } }],
      addGenerationPrompt: false,
    });
    expect(tok).toEqual({
      tokenIds: [1, 2, 3, 4, 5],
      spans: [
        { message: 0, role: "user", start: 0, end: 2 },
        { message: 1, role: "assistant", start: 2, end: 5, completionStart: 3 },
      ],
    });
    expect(w.seen[1]!.body).toEqual({
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          content: "",
          tool_calls: [{ id: "1", type: "function", function: { name: "f", arguments: '{"a":1}' } }],
        },
      ],
      tools: [{ type: "function", function: { name: "f", description: "", parameters: { type: "object" } } }],
      add_generation_prompt: false,
    });
    const fb = await c.forwardBackward({
      sequences: [
        { tokenIds: [1, 2, 3], lossMask: [0, 1, 1], advantages: [0, 1, 1], samplingLogprobs: [0, -1, -2] },
      ],
      loss: { fn: "ppo", clipLow: 0.2, clipHigh: 0.28, klCoef: 0.01 },
    });
    expect(fb).toEqual({ loss: 1.25, metrics: { tokens: 3 } });
    expect(w.seen[2]!.body).toEqual({
      sequences: [
        { token_ids: [1, 2, 3], loss_mask: [0, 1, 1], advantages: [0, 1, 1], sampling_logprobs: [0, -1, -2] },
      ],
      loss: { fn: "ppo", clip_low: 0.2, clip_high: 0.28, kl_coef: 0.01 },
    });
    expect(await c.optimStep({ lr: 1e-3, maxGradNorm: 1 })).toEqual({ step: 5, gradNorm: 0.5 });
    expect(w.seen[3]!.body).toEqual({ lr: 1e-3, max_grad_norm: 1 });
    expect(await c.save("/tmp/ckpt")).toEqual({ path: "/tmp/ckpt", step: 5, optimizer: true });
    expect(await c.load("/tmp/ckpt", { optimizer: false })).toEqual({
      path: "/tmp/ckpt",
      step: 5,
      optimizer: false,
    });
    expect(w.seen[4]!.body).toEqual({ path: "/tmp/ckpt", optimizer: true });
    expect(w.seen[5]!.body).toEqual({ path: "/tmp/ckpt", optimizer: false });
  });

  it("reports a non-finite loss and a skipped step with NaN values", async () => {
    const w = await fakeWorker({
      "/v1/train/forward_backward": () => [200, { loss: null, nonfinite: true, metrics: { num_tokens: 2 } }],
      "/v1/train/optim_step": () => [
        200,
        { step: 2, grad_norm: null, skipped: true, reason: "non-finite loss" },
      ],
    });
    const c = new WorkerClient(w.url);
    const fb = await c.forwardBackward({
      sequences: [{ tokenIds: [1, 2], lossMask: [0, 1] }],
      loss: { fn: "cross_entropy" },
    });
    expect(fb.nonfinite).toBe(true);
    expect(Number.isNaN(fb.loss)).toBe(true);
    // advantages are optional for cross_entropy and then not sent
    expect(w.seen[0]!.body).toEqual({
      sequences: [{ token_ids: [1, 2], loss_mask: [0, 1] }],
      loss: { fn: "cross_entropy" },
    });
    const r = await c.optimStep({ lr: 1 });
    expect(r.skipped).toBe(true);
    expect(r.reason).toBe("non-finite loss");
    expect(r.step).toBe(2);
    expect(Number.isNaN(r.gradNorm)).toBe(true);
  });

  it("turns 4xx into WORKER_ERROR carrying the server's message", async () => {
    const w = await fakeWorker({
      "/v1/train/forward_backward": () => [
        400,
        {
          error: {
            code: "invalid_request",
            message: "sequence 0: loss_mask has 2 entries, token_ids 3",
            type: "x",
          },
        },
      ],
      "/v1/train/optim_step": () => [422, { detail: [{ loc: ["body", "lr"], msg: "field required" }] }],
    });
    const c = new WorkerClient(w.url);
    const e1 = await c
      .forwardBackward({
        sequences: [{ tokenIds: [1, 2, 3], lossMask: [1, 1], advantages: [1, 1, 1] }],
        loss: { fn: "cross_entropy" },
      })
      .catch((e: unknown) => e);
    expect(isEnvaceError(e1, "WORKER_ERROR")).toBe(true);
    expect((e1 as Error).message).toContain("loss_mask has 2 entries");
    expect((e1 as { details: { status: number } }).details.status).toBe(400);
    const e2 = await c.optimStep({ lr: 1 }).catch((e: unknown) => e);
    expect(isEnvaceError(e2, "WORKER_ERROR")).toBe(true);
    expect((e2 as Error).message).toContain("field required");
  });

  it("rejects a response of the wrong shape", async () => {
    const w = await fakeWorker({ "/health": () => [200, { status: "ok" }] });
    const err = await new WorkerClient(w.url).health().catch((e: unknown) => e);
    expect(isEnvaceError(err, "WORKER_ERROR")).toBe(true);
  });

  it("says WORKER_UNAVAILABLE when nothing listens", async () => {
    const w = await fakeWorker({});
    await w.close();
    closers.length = 0;
    const err = await new WorkerClient(w.url).health().catch((e: unknown) => e);
    expect(isEnvaceError(err, "WORKER_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toContain("ECONNREFUSED");
  });

  it("chatModel() points an OpenAI client at the worker's /v1 with token ids on", () => {
    const m = new WorkerClient("http://127.0.0.1:9").chatModel();
    expect(m.baseURL).toBe("http://127.0.0.1:9/v1");
    expect(m.requestBody({ messages: [] })).toMatchObject({ return_token_ids: true, logprobs: true });
  });
});

describe("workerServeArgs", () => {
  it("builds serve arguments for a model directory or a tiny init", () => {
    expect(workerServeArgs({ model: "/m", loraRank: 8, host: "127.0.0.1", port: 9 })).toEqual([
      "serve",
      "--model",
      "/m",
      "--lora-rank",
      "8",
      "--host",
      "127.0.0.1",
      "--port",
      "9",
    ]);
    expect(
      workerServeArgs({
        init: { corpus: "c.txt", size: "xs", vocabExtra: "v.txt", seed: 3 },
        host: "h",
        port: 1,
      }),
    ).toEqual([
      "serve",
      "--init",
      "tiny",
      "--corpus",
      "c.txt",
      "--size",
      "xs",
      "--vocab-extra",
      "v.txt",
      "--seed",
      "3",
      "--host",
      "h",
      "--port",
      "1",
    ]);
  });

  it("passes parallelism, device and dtype on", () => {
    expect(
      workerServeArgs({
        model: "/m",
        parallel: "fsdp",
        device: "cuda",
        dtype: "bfloat16",
        host: "h",
        port: 1,
      }),
    ).toEqual([
      "serve",
      "--model",
      "/m",
      "--parallel",
      "fsdp",
      "--device",
      "cuda",
      "--dtype",
      "bfloat16",
      "--host",
      "h",
      "--port",
      "1",
    ]);
  });

  it("refuses both or neither of model and init", () => {
    expect(() => workerServeArgs({ host: "h", port: 1 })).toThrow(/exactly one/);
    expect(() => workerServeArgs({ model: "m", init: { corpus: "c" }, host: "h", port: 1 })).toThrow(
      /exactly one/,
    );
  });
});
