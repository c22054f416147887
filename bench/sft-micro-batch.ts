/**
 * Benchmark: SFT speed of the demo's tiny model against the worker's micro-batch size (issue 11's
 * 30-minute seed; the plan's `microBatchTokens`).
 *
 *   npm run -s bench:sft-micro-batch -- [--seed 1] [--steps 40] [--tokens worker,2048] [--json]
 *
 * For each `--tokens` value (padded tokens per training micro-batch, or `worker`: the worker's own
 * default, which its /health reports; the first is the baseline, default `worker` then the full
 * plan's), a fresh tiny model (the seed's init) takes
 * the same first `--steps` SFT steps of the full plan's data for that seed, in the demo's order and
 * schedule. Prints steps a minute (after 5 warm-up steps), the ratio to the baseline, and the largest
 * loss difference to the baseline over the steps: the split of a batch into micro-batches must not
 * change the gradient, only the speed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildDemoData } from "../src/demo/data.js";
import { FULL_PLAN } from "../src/demo/layout.js";
import { demoSftData, sftOrder, sftRunOptions, startSftWorker } from "../src/demo/sft-stage.js";
import { runSft } from "../src/train/sft.js";
import { benchArgs } from "./model-args.js";

const WARMUP_STEPS = 5;
/** A `--tokens` value that passes no `--micro-batch-tokens` to the worker. */
const WORKER_DEFAULT = "worker";

const { opt, fail, int, json } = benchArgs(process.argv.slice(2));
const seed = int("seed", 1, 0);
const steps = int("steps", 40, WARMUP_STEPS + 1);
const tokens = (opt("tokens") ?? `${WORKER_DEFAULT},${FULL_PLAN.microBatchTokens ?? WORKER_DEFAULT}`)
  .split(",")
  .map((v) =>
    v === WORKER_DEFAULT
      ? undefined
      : /^\d+$/.test(v) && Number(v) >= 64
        ? Number(v)
        : fail(`--tokens: ${v} is neither an integer ≥ 64 nor "${WORKER_DEFAULT}"`),
  );

const say = (m: string) => (json ? undefined : process.stderr.write(`${m}\n`));
const data = buildDemoData(FULL_PLAN, seed);
const sft = demoSftData(data, FULL_PLAN, seed);
const examples = sftOrder([...sft.act, ...sft.rehearse], seed);
const { batchSize } = FULL_PLAN.sft;
const batch = examples.slice(0, batchSize * steps);

const root = mkdtempSync(join(tmpdir(), "envace-sft-bench-"));
const runs: { micro_batch_tokens: number; steps_per_min: number; loss: number[] }[] = [];
try {
  for (const [k, micro] of tokens.entries()) {
    say(`micro-batch ${micro ?? "(the worker's default)"} tokens: ${steps} steps ...`);
    const plan = { ...FULL_PLAN, microBatchTokens: micro };
    const worker = await startSftWorker(join(root, String(k)), data, plan, seed);
    try {
      // what the worker runs, as it reports it (its default when no flag was given)
      const ran = (await worker.client.health()).micro_batch_tokens;
      if (ran === undefined) throw new Error("the worker's /health does not report micro_batch_tokens");
      let warm = 0;
      const res = await runSft(worker.client, worker.client, batch, {
        ...sftRunOptions(plan),
        epochs: 1,
        onStep: (s) => (s.step === WARMUP_STEPS ? (warm = Date.now()) : undefined),
      });
      const minutes = (Date.now() - warm) / 60000;
      runs.push({
        micro_batch_tokens: ran,
        steps_per_min: (res.steps - WARMUP_STEPS) / minutes,
        loss: res.lossByStep,
      });
    } finally {
      await worker.stop();
    }
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

const base = runs[0]!;
const out = {
  seed,
  steps,
  examples: examples.length,
  runs: runs.map((r) => ({
    micro_batch_tokens: r.micro_batch_tokens,
    steps_per_min: r.steps_per_min,
    speedup: r.steps_per_min / base.steps_per_min,
    max_loss_diff: Math.max(...r.loss.map((l, i) => Math.abs(l - base.loss[i]!))),
  })),
};
if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
else
  for (const r of out.runs)
    console.log(
      `micro-batch ${String(r.micro_batch_tokens).padStart(6)}: ${r.steps_per_min.toFixed(1)} steps/min, ` +
        `×${r.speedup.toFixed(2)} against ${base.micro_batch_tokens}, loss within ${r.max_loss_diff.toExponential(1)}`,
    );
