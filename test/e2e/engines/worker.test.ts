import { join } from "node:path";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker, type WorkerProcess, type WorkerClient } from "../../../src/engines/index.js";
import { isEnvaceError } from "../../../src/core/errors.js";
import type { Message } from "../../../src/core/messages.js";
import { isAlive, waitFor } from "../processes.js";
import { writeTinyCorpus } from "./corpus.js";

// One real worker (tiny model, trained tokenizer) shared by the tests of this file.
let worker: WorkerProcess;
let client: WorkerClient;
let dir: string;

beforeAll(async () => {
  const c = writeTinyCorpus();
  dir = c.dir;
  worker = await startWorker({
    init: { corpus: c.corpus, size: "xs", seed: 1 },
    port: 0,
    restartOnCrash: true,
    maxRestarts: 2,
    checkpointRoot: dir,
  });
  client = worker.client;
});

afterAll(async () => {
  const pid = worker?.pid;
  await worker?.stop();
  if (pid) expect(isAlive(pid)).toBe(false);
});

const conversation: Message[] = [
  { role: "system", content: "you help with orders" },
  { role: "user", content: "cancel order status pending" },
  { role: "assistant", content: "the order status is delivered refund email" },
];

/** A training sequence from the conversation: loss on the assistant's completion tokens. */
async function sequence() {
  const tok = await client.tokenize({ messages: conversation });
  const span = tok.spans[2]!;
  const from = span.completionStart ?? span.start;
  const lossMask = tok.tokenIds.map((_, i) => (i >= from && i < span.end ? 1 : 0));
  return { tokenIds: tok.tokenIds, lossMask, advantages: lossMask.map(() => 1) };
}

describe("the real worker", () => {
  it("answers /health", async () => {
    const h = await client.health();
    expect(h.status).toBe("ok");
    expect(h.world_size).toBe(1);
    expect(typeof h.model).toBe("string");
  });

  it("requires its token on everything but /health, and refuses a foreign Origin", async () => {
    expect((await fetch(`${worker.url}/health`)).status).toBe(200);
    expect((await fetch(`${worker.url}/v1/models`)).status).toBe(401);
    const auth = { authorization: `Bearer ${worker.apiKey}` };
    expect((await fetch(`${worker.url}/v1/models`, { headers: auth })).status).toBe(200);
    const foreign = await fetch(`${worker.url}/v1/train/save`, {
      method: "POST",
      headers: { ...auth, origin: "http://evil.example", "content-type": "text/plain" },
      body: JSON.stringify({ path: "evil" }),
    });
    expect(foreign.status).toBe(403);
    const outside = await client.save("/tmp/envace-outside-root").catch((e: unknown) => e);
    expect(isEnvaceError(outside, "WORKER_ERROR")).toBe(true);
    expect((outside as Error).message).toMatch(/outside the worker's checkpoint root/);
  });

  it("serves the official openai client, with token_ids and logprobs", async () => {
    const openai = new OpenAI({ baseURL: `${worker.url}/v1`, apiKey: worker.apiKey });
    const res = await openai.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: "cancel order" }],
      max_tokens: 8,
      seed: 3,
      logprobs: true,
      // vLLM's extension, which the worker implements
      ...({ return_token_ids: true } as object),
    });
    const choice = res.choices[0] as (typeof res.choices)[0] & { token_ids: number[] };
    expect(Array.isArray(choice.token_ids)).toBe(true);
    expect(choice.token_ids.length).toBeGreaterThan(0);
    expect(choice.token_ids.length).toBeLessThanOrEqual(8);
    expect(choice.logprobs?.content?.length).toBe(choice.token_ids.length);
    expect((res as unknown as { prompt_token_ids: number[] }).prompt_token_ids.length).toBeGreaterThan(0);
  });

  it("OpenAIChatModel reads n samples with token ids and logprobs; the prompt ids match /v1/tokenize", async () => {
    const model = client.chatModel();
    const messages: Message[] = [{ role: "user", content: "refund email" }];
    const res = await model.chat({ messages, n: 2, maxTokens: 6, seed: 5, temperature: 1 });
    expect(res.samples).toHaveLength(2);
    for (const s of res.samples) {
      expect(s.tokenIds!.length).toBeGreaterThan(0);
      expect(s.logprobs).toHaveLength(s.tokenIds!.length);
      expect(s.logprobs!.every((lp) => lp <= 0)).toBe(true);
    }
    const tok = await client.tokenize({ messages, addGenerationPrompt: true });
    expect(res.promptTokenIds).toEqual(tok.tokenIds);
  });

  it("tokenize gives contiguous per-message spans", async () => {
    const tok = await client.tokenize({ messages: conversation });
    expect(tok.spans.map((s) => s.message)).toEqual([0, 1, 2]);
    expect(tok.spans[0]!.start).toBe(0);
    for (let k = 1; k < tok.spans.length; k++) expect(tok.spans[k]!.start).toBe(tok.spans[k - 1]!.end);
    expect(tok.spans[2]!.end).toBeLessThanOrEqual(tok.tokenIds.length);
    expect(tok.spans[2]!.completionStart).toBeGreaterThan(tok.spans[2]!.start);
  });

  it("renders tools, assistant tool calls and tool results through the chat template", async () => {
    const tools = [
      {
        name: "get_order",
        description: "look up an order",
        parameters: { type: "object", properties: { order_id: { type: "string" } }, required: ["order_id"] },
      },
    ];
    const messages: Message[] = [
      { role: "user", content: "status of order 12" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "get_order", arguments: { order_id: "12" } }],
      },
      { role: "tool", content: '{"status":"pending"}', toolCallId: "c1", name: "get_order" },
    ];
    const withTools = await client.tokenize({ messages, tools });
    const without = await client.tokenize({ messages });
    expect(withTools.spans).toHaveLength(3);
    // the tool schema is part of the prompt
    expect(withTools.tokenIds.length).toBeGreaterThan(without.tokenIds.length);
    const res = await client.chatModel().chat({ messages, tools, maxTokens: 4, seed: 1 });
    const tok = await client.tokenize({ messages, tools, addGenerationPrompt: true });
    expect(res.promptTokenIds).toEqual(tok.tokenIds);
  });

  it("forward_backward + optim_step reduce the loss", async () => {
    const seq = await sequence();
    const losses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const fb = await client.forwardBackward({ sequences: [seq], loss: { fn: "cross_entropy" } });
      losses.push(fb.loss);
      const st = await client.optimStep({ lr: 3e-3, maxGradNorm: 1 });
      expect(Number.isFinite(st.gradNorm)).toBe(true);
    }
    expect(losses.every(Number.isFinite)).toBe(true);
    expect(losses.at(-1)!).toBeLessThan(losses[0]! * 0.9);
  });

  it("save → change → load restores the exact loss and step", async () => {
    const seq = await sequence();
    const lossNow = async () => {
      const fb = await client.forwardBackward({ sequences: [seq], loss: { fn: "cross_entropy" } });
      await client.zeroGrad();
      return fb.loss;
    };
    const ckpt = join(dir, "ckpt");
    const saved = await client.save(ckpt);
    const before = await lossNow();
    await client.forwardBackward({ sequences: [seq], loss: { fn: "cross_entropy" } });
    await client.optimStep({ lr: 1e-2 });
    expect(await lossNow()).not.toBe(before);
    const loaded = await client.load(ckpt);
    expect(loaded.step).toBe(saved.step);
    expect(await lossNow()).toBe(before);
    expect((await client.health()).step).toBe(saved.step);
  });

  it("turns a bad training request into WORKER_ERROR with the worker's message, changing nothing", async () => {
    const step = (await client.health()).step;
    const err = await client
      .forwardBackward({
        sequences: [{ tokenIds: [1, 2, 3], lossMask: [0, 1], advantages: [0, 1, 1] }],
        loss: { fn: "cross_entropy" },
      })
      .catch((e: unknown) => e);
    expect(isEnvaceError(err, "WORKER_ERROR")).toBe(true);
    expect((err as Error).message).toMatch(/loss_mask/);
    const missing = await client.load(join(dir, "no-such-ckpt")).catch((e: unknown) => e);
    expect(isEnvaceError(missing, "WORKER_ERROR")).toBe(true);
    expect((await client.health()).step).toBe(step);
  });

  it("restarts a killed worker on the same URL and resumes the registered checkpoint", async () => {
    const ckpt = join(dir, "resume");
    const seq = await sequence();
    await client.forwardBackward({ sequences: [seq], loss: { fn: "cross_entropy" } });
    await client.optimStep({ lr: 1e-3 });
    const saved = await client.save(ckpt);
    worker.setResumeCheckpoint(ckpt);
    const restarts: unknown[] = [];
    worker.on("restart", (info) => restarts.push(info));
    const oldPid = worker.pid;
    process.kill(oldPid, "SIGKILL");
    await waitFor(() => restarts.length === 1, "the restart event");
    await worker.waitReady();
    expect(worker.restarts).toBe(1);
    expect(worker.pid).not.toBe(oldPid);
    expect(isAlive(oldPid)).toBe(false);
    expect(restarts[0]).toMatchObject({ restarts: 1, signal: "SIGKILL" });
    // a fresh tiny init would be at step 0: the restarted worker loaded the checkpoint
    expect((await client.health()).step).toBe(saved.step);
    expect(saved.step).toBeGreaterThan(0);
  });
});
