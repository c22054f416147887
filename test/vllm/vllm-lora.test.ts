import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message } from "../../src/core/messages.js";
import { OpenAIChatModel } from "../../src/engines/openai-chat-model.js";
import { VllmRolloutEngine } from "../../src/engines/vllm-engine.js";
import { startWorker, type WorkerProcess } from "../../src/engines/worker-supervisor.js";
import { writeTinyCorpus } from "../e2e/engines/corpus.js";
import { noGpuReason, startVllm, VLLM_DEVICE, vllmAvailable, type VllmServer } from "./vllm-server.js";

/**
 * Our worker and a real vLLM (CPU) on the same tiny Qwen3 model: train LoRA in the worker, publish,
 * hot-load into vLLM, and check that vLLM's sampling logprobs equal the worker's teacher-forced
 * logprobs of the same tokens (|Δ log p| ≤ TOL per token), before and after the update; the full
 * fine-tuning path reloads the weights from disk between /pause and /resume.
 * Reuse a running server with ENVACE_VLLM_URL (+ ENVACE_VLLM_MODEL, its model directory).
 * ENVACE_VLLM_DEVICE=cuda (`npm run check:gpu:vllm`) runs the worker and vLLM on one GPU; the file
 * is skipped there when no GPU is visible.
 */
const GPU_MISSING = VLLM_DEVICE === "cuda" ? noGpuReason() : null;
if (GPU_MISSING) console.warn(`skipping the GPU vLLM checks: ${GPU_MISSING}`);
// On a GPU, vLLM's attention kernels and the worker's eager attention round differently
// (test_cuda.py: the worker's own KV-cache decode vs a full forward already differ by up to 1e-3).
const TOL = VLLM_DEVICE === "cuda" ? 1e-2 : 2e-3;
const SERVED = "tiny";
const log: string[] = [];
let dir: string;
let model: string;
let vllm: VllmServer | undefined;
let baseURL: string;
const workers: WorkerProcess[] = [];

const messages: Message[] = [
  { role: "system", content: "you help with orders" },
  { role: "user", content: "cancel order status pending" },
];

const setup = async () => {
  if (!vllmAvailable() && !process.env.ENVACE_VLLM_URL)
    throw new Error("vLLM is not installed: run `npm run setup:vllm` first");
  const c = writeTinyCorpus();
  dir = c.dir;
  model = process.env.ENVACE_VLLM_MODEL ?? join(dir, "tiny-s");
  if (!process.env.ENVACE_VLLM_MODEL) {
    const py = join(process.cwd(), ".venv", "bin", "python");
    const r = spawnSync(py, [
      "-m",
      "envace_worker",
      "init-tiny",
      "--corpus",
      c.corpus,
      "--size",
      "s",
      "--out",
      model,
    ]);
    if (r.status !== 0) throw new Error(`init-tiny failed: ${r.stderr.toString()}`);
  }
  if (process.env.ENVACE_VLLM_URL) baseURL = process.env.ENVACE_VLLM_URL.replace(/\/+$/, "");
  else {
    vllm = await startVllm({ model, servedName: SERVED, port: 18101, log: (l) => log.push(l) });
    baseURL = vllm.baseURL;
  }
};

const teardown = async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await vllm?.stop();
};

async function worker(loraRank: number): Promise<WorkerProcess> {
  const w = await startWorker({
    model,
    ...(loraRank ? { loraRank } : {}),
    ...(VLLM_DEVICE === "cuda" ? { device: "cuda" } : {}),
    port: 0,
    checkpointRoot: dir,
  });
  workers.push(w);
  return w;
}

/**
 * vLLM samples a completion (T = 1, seeded) with its logprobs; the worker scores the same tokens
 * teacher-forced (a PPO forward_backward whose per-sequence ratio is exp(worker − vLLM) per
 * token), then drops the gradient. Returns the ratio's range and the token ids vLLM used.
 */
async function mismatch(w: WorkerProcess, policy: { chat: OpenAIChatModel["chat"] }) {
  const res = await policy.chat({ messages, temperature: 1, maxTokens: 24, seed: 5 });
  const s = res.samples[0]!;
  const prompt = res.promptTokenIds!;
  const tokenIds = [...prompt, ...s.tokenIds!];
  const fb = await w.client.forwardBackward({
    sequences: [
      {
        tokenIds,
        lossMask: tokenIds.map((_, i) => (i >= prompt.length ? 1 : 0)),
        advantages: tokenIds.map(() => 0),
        samplingLogprobs: [...prompt.map(() => 0), ...s.logprobs!],
      },
    ],
    loss: { fn: "ppo", temperature: 1 },
  });
  await w.client.zeroGrad();
  const m = fb.sequenceMetrics![0]!;
  return { min: m.ratioMin!, max: m.ratioMax!, tokens: m.tokens, prompt, completion: s.tokenIds! };
}

/** One big LoRA/full step on a fixed completion, so the weights move visibly. */
async function trainStep(w: WorkerProcess, completion: number[], prompt: number[], lr: number) {
  const tokenIds = [...prompt, ...completion];
  await w.client.forwardBackward({
    sequences: [{ tokenIds, lossMask: tokenIds.map((_, i) => (i >= prompt.length ? 1 : 0)) }],
    loss: { fn: "cross_entropy" },
  });
  const o = await w.client.optimStep({ lr });
  expect(o.skipped).toBeFalsy();
}

describe.skipIf(GPU_MISSING !== null)(`vLLM follows the trainer (${VLLM_DEVICE})`, () => {
  beforeAll(setup);
  afterAll(teardown);

  it("LoRA: published adapters hot-load and vLLM's logprobs match the worker's, before and after a step", async () => {
    const w = await worker(4);
    const engine = new VllmRolloutEngine({ endpoints: [{ baseURL }], baseModel: SERVED });
    // the chat template renders the same prompt tokens on both sides (token in, token out)
    const tok = await w.client.tokenize({ messages, addGenerationPrompt: true });

    const t0 = performance.now();
    const v0 = await w.client.publish("itest", { dir: "published" });
    const publish0 = (performance.now() - t0) / 1000;
    const s0 = await engine.sync(v0);
    expect(s0.failed).toEqual([]);
    const before = await mismatch(w, engine.policy);
    expect(before.prompt).toEqual(tok.tokenIds);
    expect(before.tokens).toBeGreaterThan(0);
    expect(Math.abs(Math.log(before.min))).toBeLessThan(TOL);
    expect(Math.abs(Math.log(before.max))).toBeLessThan(TOL);

    await trainStep(w, before.completion, before.prompt, 5e-2);
    const t1 = performance.now();
    const v1 = await w.client.publish("itest", { dir: "published" });
    const publish1 = (performance.now() - t1) / 1000;
    const s1 = await engine.sync(v1);
    expect(v1.version).toBe("itest@1");
    const after = await mismatch(w, engine.policy);
    expect(Math.abs(Math.log(after.min))).toBeLessThan(TOL);
    expect(Math.abs(Math.log(after.max))).toBeLessThan(TOL);

    // the adapter really is in use: the base weights disagree with the trained worker
    const base = new OpenAIChatModel({ baseURL, model: SERVED, returnTokenIds: true, maxRetries: 0 });
    const stale = await mismatch(w, base);
    expect(Math.max(Math.abs(Math.log(stale.min)), Math.abs(Math.log(stale.max)))).toBeGreaterThan(10 * TOL);
    console.log(
      JSON.stringify({
        lora: {
          ratio_before: [before.min, before.max],
          ratio_after: [after.min, after.max],
          ratio_base_vs_trained: [stale.min, stale.max],
          publish_s: [publish0, publish1],
          load_s: [s0.seconds, s1.seconds],
        },
      }),
    );
  });

  // Full fine-tuning: the checkpoint is reloaded in place (collective_rpc reload_weights between
  // /pause and /resume). Measured on vLLM 0.32's CPU backend with this tied-embedding model: the
  // first reload of a fresh server takes effect but not fully (its log: "ParallelLMHead: Failed to
  // load weights": the tied LM head keeps its old values; ratio 0.99–4.25 before, 1.08–1.16 after),
  // and a second reload on the same server changed nothing served. So on CPU only LoRA follows the
  // trainer exactly; run this file against a fresh server (not ENVACE_VLLM_URL reused).
  let full: { stale: number; after: number } | undefined;
  const spread = (m: { min: number; max: number }) =>
    Math.max(Math.abs(Math.log(m.min)), Math.abs(Math.log(m.max)));

  it("full weights: a published checkpoint reloaded between /pause and /resume takes effect", async () => {
    const w = await worker(0);
    const engine = new VllmRolloutEngine({ endpoints: [{ baseURL }], baseModel: SERVED });
    const served = new OpenAIChatModel({ baseURL, model: SERVED, returnTokenIds: true, maxRetries: 0 });
    const warm = await mismatch(w, served);
    await trainStep(w, warm.completion, warm.prompt, 1e-3);
    const stale = await mismatch(w, served); // the server still has the old weights
    const t0 = performance.now();
    const v1 = await w.client.publish("full", { dir: "published", keep: 1 });
    const publishS = (performance.now() - t0) / 1000;
    expect(v1.format).toBe("full");
    const s1 = await engine.sync(v1);
    expect(s1.failed).toEqual([]);
    const after = await mismatch(w, engine.policy);
    full = { stale: spread(stale), after: spread(after) };
    console.log(
      JSON.stringify({
        full: {
          ratio_stale: [stale.min, stale.max],
          ratio_after: [after.min, after.max],
          publish_s: publishS,
          load_s: s1.seconds,
        },
      }),
    );
    expect(full.stale).toBeGreaterThan(10 * TOL); // the step moved the weights visibly
    expect(full.after).toBeLessThan(full.stale / 2); // the reload took effect
  });

  // Pinned upstream limitation on CPU (see above): fails while vLLM leaves the tied head stale.
  // On a GPU the reload is expected to take full effect.
  const fullMatch = VLLM_DEVICE === "cpu" ? it.fails : it;
  fullMatch("full weights: after the reload vLLM's logprobs match the worker's within TOL", () => {
    if (!full) {
      if (VLLM_DEVICE === "cpu") return; // no measurement: passing here makes it.fails report it
      throw new Error("the full-weights test above measured nothing");
    }
    expect(full.after).toBeLessThan(TOL);
  });
});
