/**
 * Benchmark: rollouts on our worker against rollouts on vLLM, on the same model, in one run.
 *
 *   npm run bench:rollout-engines -- [--json] [--vllm URL/v1 ...] [--base DIR] [--steps 3]
 *        [--requests 32] [--max-tokens 64] [--served-model tiny]
 *
 * 1. The model: the rehearsal example's SFT warm-up (built in a temp dir) or `--base DIR`.
 * 2. vLLM: the servers given with `--vllm` (repeat it; they must serve DIR with LoRA runtime
 *    updating on, README "Rollouts on vLLM"), else two started here from `.venv-vllm`.
 * 3. Sampling throughput: completion tokens/s of the worker (LoRA rank 8, as the example) and of
 *    one vLLM server serving a published adapter, with 1 and `--requests` requests in flight.
 * 4. Step time: `examples/vllm-lora.yaml` for `--steps` steps with rollouts on the worker, then on
 *    all the vLLM servers (otherwise the same run); a step is metrics.jsonl's sample + train
 *    seconds (median over steps), and the publish + load seconds come from its `off_policy`.
 *
 * Prints {worker_tps_1, worker_tps_32, vllm_tps_1, vllm_tps_32, step_s_worker, step_s_vllm,
 * publish_s, load_s, sync_s, sync_share}: sync_s is the mean publish + load per step of the vLLM
 * run and sync_share its mean share of the step (the bound: under 10%).
 */
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { ChatModel } from "../src/core/model.js";
import { VllmRolloutEngine } from "../src/engines/vllm-engine.js";
import { startWorker } from "../src/engines/worker-supervisor.js";
import type { StepMetrics } from "../src/train/step-metrics.js";
import { rehearsalBase, runTrain, vllmRehearsalConfig } from "../test/vllm/rehearsal-run.js";
import { startVllm, vllmAvailable, type VllmServer } from "../test/vllm/vllm-server.js";

const argv = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
};
const opts = (name: string): string[] => argv.flatMap((a, i) => (a === `--${name}` ? [argv[i + 1]!] : []));
const num = (name: string, dflt: number): number => {
  const v = Number(opt(name) ?? dflt);
  if (!Number.isInteger(v) || v < 1) {
    process.stderr.write(`--${name} must be a positive integer\n`);
    process.exit(2);
  }
  return v;
};
if (argv.includes("--help")) {
  process.stdout.write(
    "usage: bench:rollout-engines -- [--json] [--vllm URL/v1 ...] [--base DIR] [--steps N] " +
      "[--requests N] [--max-tokens N] [--served-model NAME]\n",
  );
  process.exit(0);
}
const SERVED = opt("served-model") ?? "tiny";
const N = num("requests", 32);
const MAX_TOKENS = num("max-tokens", 64);
const STEPS = num("steps", 3);
const LORA = 8; // examples/vllm-lora.yaml's rank
const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);

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
const servers: VllmServer[] = [];
try {
  const base =
    opt("base") ??
    (say("building the rehearsal example's base model (SFT warm-up)"), await rehearsalBase(dir));
  say(`model: ${base} (pass it as --base to reuse it)`);
  let urls = opts("vllm");
  if (urls.length === 0) {
    if (!vllmAvailable())
      throw new Error("vLLM is not installed: run `npm run setup:vllm`, or pass --vllm URL");
    say("starting two vLLM servers (minutes on a small CPU)");
    const started = await Promise.allSettled(
      [18121, 18122].map((port) =>
        startVllm({ model: base, servedName: SERVED, port, maxModelLen: 2048, log: () => undefined }),
      ),
    );
    for (const s of started) if (s.status === "fulfilled") servers.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    urls = servers.map((s) => s.baseURL);
  }

  say("sampling throughput");
  const worker = await startWorker({ model: base, loraRank: LORA, port: 0, checkpointRoot: dir });
  let throughput: Record<string, number>;
  try {
    const one = new VllmRolloutEngine({ endpoints: [{ baseURL: urls[0]! }], baseModel: SERVED });
    await one.sync(await worker.client.publish("bench", { keep: 2 }));
    const workerModel = worker.client.chatModel();
    await tps(workerModel, 2); // warm-up
    await tps(one.policy, 2);
    throughput = {
      worker_tps_1: await tps(workerModel, 1),
      worker_tps_32: await tps(workerModel, N),
      vllm_tps_1: await tps(one.policy, 1),
      vllm_tps_32: await tps(one.policy, N),
    };
  } finally {
    await worker.stop();
  }

  const sized = { steps: STEPS, eval_every: 0, checkpoint_every: STEPS };
  say(`${STEPS} steps of examples/vllm-lora.yaml with rollouts on the worker`);
  const onWorker = await runTrain(vllmRehearsalConfig(base, [], sized), join(dir, "run-worker"));
  say(`${STEPS} steps of examples/vllm-lora.yaml with rollouts on ${urls.length} vLLM server(s)`);
  const onVllm = await runTrain(vllmRehearsalConfig(base, urls, sized), join(dir, "run-vllm"));
  const sync = onVllm.map((m) => m.off_policy!.publish_s + m.off_policy!.load_s);
  const out = {
    requests: N,
    max_tokens: MAX_TOKENS,
    vllm_servers: urls.length,
    ...throughput,
    step_s_worker: median(onWorker.map(stepSeconds)),
    step_s_vllm: median(onVllm.map(stepSeconds)),
    publish_s: mean(onVllm.map((m) => m.off_policy!.publish_s)),
    load_s: mean(onVllm.map((m) => m.off_policy!.load_s)),
    sync_s: mean(sync),
    sync_share: mean(onVllm.map((m, i) => sync[i]! / stepSeconds(m))),
    rows_worker: onWorker.map((m) => m.rows),
    rows_vllm: onVllm.map((m) => m.rows),
    load_avg_1m: loadavg()[0], // other work on the machine skews every figure
  };
  if (argv.includes("--json")) process.stdout.write(JSON.stringify(out) + "\n");
  else
    for (const [k, v] of Object.entries(out)) process.stdout.write(`${k.padEnd(14)} ${JSON.stringify(v)}\n`);
} finally {
  await Promise.all(servers.map((s) => s.stop()));
}

/** A step's wall time as the loop measures it (the rollouts include the sync before them). */
function stepSeconds(m: StepMetrics): number {
  return m.time.sample + m.time.train;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
