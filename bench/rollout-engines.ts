/**
 * Benchmark: sampling throughput of our worker and of a vLLM server on the same model, and the cost
 * of keeping vLLM in sync with the trainer (publish + hot-load of a LoRA adapter). Starts the worker
 * itself (LoRA on the model); the vLLM server must already run on the same model directory with
 * LoRA runtime updating on (README, "Rollouts on vLLM"):
 *
 *   npm run bench:rollout-engines -- --model DIR --vllm http://127.0.0.1:8101/v1 [--served-model tiny]
 *        [--requests 32] [--max-tokens 64] [--lora-rank 4] [--json]
 *
 * Prints {worker_tps_1, worker_tps_32, vllm_tps_1, vllm_tps_32, publish_s, load_s, sync_s}: completion
 * tokens per second with 1 and N requests in flight (N = --requests), and the mean seconds of a
 * publish, of loading it into vLLM, and of both. Not measured here: the step time of a whole
 * training run with each engine (`rollout-sync.jsonl` and `metrics.jsonl`'s `time` give it per run).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatModel } from "../src/core/model.js";
import { VllmRolloutEngine } from "../src/engines/vllm-engine.js";
import { startWorker } from "../src/engines/worker-supervisor.js";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const MODEL = opt("model");
const VLLM = opt("vllm");
if (!MODEL || !VLLM) {
  process.stderr.write(
    "usage: bench:rollout-engines -- --model DIR --vllm URL/v1 [--served-model NAME] [--json]\n",
  );
  process.exit(2);
}
const SERVED = opt("served-model") ?? "tiny";
const N = Number(opt("requests") ?? 32);
const MAX_TOKENS = Number(opt("max-tokens") ?? 64);
const LORA = Number(opt("lora-rank") ?? 4);
const SYNCS = 3;

const messages = (k: number) => [
  { role: "system" as const, content: "you help with orders" },
  { role: "user" as const, content: `cancel order ${k} status pending` },
];

/** Completion tokens per second with `n` requests in flight (each request distinct). */
async function tps(model: ChatModel, n: number): Promise<number> {
  const t0 = performance.now();
  const res = await Promise.all(
    Array.from({ length: n }, (_, k) =>
      model.chat({ messages: messages(k), temperature: 1, maxTokens: MAX_TOKENS, seed: k }),
    ),
  );
  const tokens = res.reduce((a, r) => a + r.samples.reduce((b, s) => b + (s.tokenIds?.length ?? 0), 0), 0);
  return tokens / ((performance.now() - t0) / 1000);
}

const dir = mkdtempSync(join(tmpdir(), "envace-bench-engines-"));
const worker = await startWorker({ model: MODEL, loraRank: LORA, port: 0, checkpointRoot: dir });
try {
  const engine = new VllmRolloutEngine({ endpoints: [{ baseURL: VLLM }], baseModel: SERVED });
  const publish: number[] = [];
  const load: number[] = [];
  for (let i = 0; i < SYNCS; i++) {
    const t0 = performance.now();
    const w = await worker.client.publish("bench", { keep: 2 });
    publish.push((performance.now() - t0) / 1000);
    load.push((await engine.sync(w)).seconds);
  }
  const workerModel = worker.client.chatModel();
  await tps(workerModel, 2); // warm-up
  await tps(engine.policy, 2);
  const out = {
    requests: N,
    max_tokens: MAX_TOKENS,
    worker_tps_1: await tps(workerModel, 1),
    worker_tps_32: await tps(workerModel, N),
    vllm_tps_1: await tps(engine.policy, 1),
    vllm_tps_32: await tps(engine.policy, N),
    publish_s: mean(publish),
    load_s: mean(load),
    sync_s: mean(publish) + mean(load),
  };
  if (argv.includes("--json")) process.stdout.write(JSON.stringify(out) + "\n");
  else for (const [k, v] of Object.entries(out)) process.stdout.write(`${k.padEnd(14)} ${v}\n`);
} finally {
  await worker.stop();
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}
