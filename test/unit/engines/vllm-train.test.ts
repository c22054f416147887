import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import "../../../src/envs/toolworld/register.js"; // tasks from `generator: toolworld`
import { parseTrainConfig } from "../../../src/train/config.js";
import { trainFromConfig } from "../../../src/train/run.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";
import { startMockVllmServer, type MockVllmServer } from "../../../src/testing/mock-vllm-server.js";

/**
 * `envace train` with `rollout: {engine: vllm}` wired end to end in-process: a stand-in worker (the
 * training API over HTTP, recording what it is sent) behind `endpoint`, two vLLM-shaped servers
 * behind `rollout.endpoints`. Checks the version that sampled each step, that the worker trains
 * on exactly the token ids vLLM returned, and the sync log.
 */
const closers: Array<() => Promise<void>> = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

interface FakeWorker {
  url: string;
  published: string[];
  trainedTokenIds: number[][];
}

async function fakeWorker(root: string): Promise<FakeWorker> {
  const state: FakeWorker & { step: number } = { url: "", published: [], trainedTokenIds: [], step: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = chunks.length
        ? (JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>)
        : {};
      const send = (obj: unknown) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify(obj));
      };
      switch (req.url) {
        case "/health":
          return send({ status: "ok", model: "fake", step: state.step, world_size: 1 });
        case "/v1/train/publish": {
          const version = `${String(body.name)}@${state.step}`;
          const path = join(root, String(body.dir), version);
          mkdirSync(path, { recursive: true });
          writeFileSync(join(path, "adapter_config.json"), "{}");
          state.published.push(version);
          return send({ version, path, step: state.step, format: "lora", pruned: [] });
        }
        case "/v1/train/forward_backward": {
          const seqs = body.sequences as Array<{ token_ids: number[]; loss_mask: number[] }>;
          for (const s of seqs) state.trainedTokenIds.push(s.token_ids);
          return send({
            loss: 0.1,
            metrics: { num_tokens: 1 },
            sequence_metrics: seqs.map((s) => ({
              tokens: s.loss_mask.filter((m) => m === 1).length,
              ratio_mean: 1,
              ratio_min: 1,
              ratio_max: 1,
              clipped: 0,
            })),
          });
        }
        case "/v1/train/optim_step":
          state.step++;
          return send({ step: state.step, grad_norm: 0.5, skipped: false });
        case "/v1/train/zero_grad":
          return send({ step: state.step });
        case "/v1/train/save":
          mkdirSync(String(body.path), { recursive: true });
          return send({ path: body.path, step: state.step, optimizer: body.optimizer });
        default:
          res.writeHead(404);
          res.end("{}");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((r) => server.close(() => r())));
  return state;
}

describe("train with rollout: {engine: vllm}", () => {
  it("samples each step on the version published after the previous one and trains on vLLM's token ids", async () => {
    const out = mkdtempSync(join(tmpdir(), "envace-vtrain-"));
    dirs.push(out);
    const worker = await fakeWorker(out);
    const servers: MockVllmServer[] = [
      await startMockVllmServer({ name: "A", baseModel: "tiny" }),
      await startMockVllmServer({ name: "B", baseModel: "tiny" }),
    ];
    for (const s of servers) closers.push(() => s.close());
    const config = parseTrainConfig({
      endpoint: worker.url,
      tasks: { generator: "toolworld", domains: ["shop"], count: 2, seed: 1 },
      rollout: {
        engine: "vllm",
        endpoints: servers.map((s) => ({ base_url: s.baseURL })),
        base_model: "tiny",
        run_name: "t",
      },
      steps: 3,
      tasks_per_step: 2,
      group_size: 2,
      limits: { max_assistant_turns: 2, context_budget: 100000, max_tokens: 16 },
      checkpoint_every: 10,
      concurrency: 4,
    });
    const summary = await trainFromConfig(config, { outDir: out, resume: false });
    expect(summary.last_step).toBe(3);

    expect(worker.published).toEqual(["t@0", "t@1", "t@2"]);
    const sync = readFileSync(join(out, "rollout-sync.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { step: number; version: string; ready: number });
    expect(sync.map((r) => [r.step, r.version, r.ready])).toEqual([
      [1, "t@0", 2],
      [2, "t@1", 2],
      [3, "t@2", 2],
    ]);
    // metrics.jsonl says which version sampled each step, its lag and what the sync cost
    const metrics = readFileSync(join(out, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as StepMetrics);
    expect(metrics.map((m) => [m.off_policy?.version, m.off_policy?.steps])).toEqual([
      ["t@0", 0],
      ["t@1", 0],
      ["t@2", 0],
    ]);
    expect(metrics.every((m) => m.off_policy!.load_s > 0)).toBe(true);
    // every trained sequence is a vLLM prompt ++ completion, token for token: the completion's ids
    // spell `<version>|<server>|…` followed by the EOS id (the mock's), never re-tokenized text
    expect(worker.trainedTokenIds.length).toBeGreaterThan(0);
    const versionsTrained = new Set<string>();
    for (const ids of worker.trainedTokenIds) {
      const text = String.fromCodePoint(...ids);
      const m = /(t@\d)\|[AB]\|/.exec(text);
      expect(m).not.toBeNull();
      versionsTrained.add(m![1]!);
      expect(ids[ids.length - 1]).toBe(0);
    }
    expect([...versionsTrained].sort()).toEqual(["t@0", "t@1", "t@2"]);
    // both servers sampled; only the versions kept loaded remain
    for (const s of servers) {
      expect(s.calls.some((c) => c.path === "/v1/chat/completions" && c.status === 200)).toBe(true);
      expect([...s.adapters.keys()].sort()).toEqual(["t@1", "t@2"]);
    }
  });

  it("async: true samples within the bound a step ahead and publishes only after an update", async () => {
    const out = mkdtempSync(join(tmpdir(), "envace-vtrain-"));
    dirs.push(out);
    const worker = await fakeWorker(out);
    const server = await startMockVllmServer({ name: "A", baseModel: "tiny" });
    closers.push(() => server.close());
    const config = parseTrainConfig({
      endpoint: worker.url,
      tasks: { generator: "toolworld", domains: ["shop"], count: 2, seed: 1 },
      rollout: {
        engine: "vllm",
        endpoints: [{ base_url: server.baseURL }],
        base_model: "tiny",
        run_name: "t",
        max_off_policy_steps: 1,
        async: true,
      },
      steps: 4,
      tasks_per_step: 2,
      group_size: 2,
      limits: { max_assistant_turns: 2, context_budget: 100000, max_tokens: 16 },
      checkpoint_every: 10,
      concurrency: 4,
    });
    const summary = await trainFromConfig(config, { outDir: out, resume: false });
    expect(summary.last_step).toBe(4);
    // publishes before steps 1 and 3 only, each after the previous step's update (t@<updates>)
    expect(worker.published).toEqual(["t@0", "t@2"]);
    const metrics = readFileSync(join(out, "metrics.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as StepMetrics);
    expect(metrics.map((m) => [m.off_policy?.version, m.off_policy?.steps])).toEqual([
      ["t@0", 0],
      ["t@0", 1],
      ["t@2", 0],
      ["t@2", 1],
    ]);
    const versions = new Set(
      worker.trainedTokenIds.map((ids) => /(t@\d)\|/.exec(String.fromCodePoint(...ids))?.[1]),
    );
    expect([...versions].sort()).toEqual(["t@0", "t@2"]);
  });
});
