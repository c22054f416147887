import type { TrainConfig } from "./config.js";
import type { StepMetrics } from "./step-metrics.js";

/**
 * `envace train --deterministic`: two runs with the same seed and config write the same
 * metrics.jsonl, bit for bit, except the fields below.
 *
 * What makes a run vary and what this does about it:
 * - task order and per-request sampling seeds already depend only on (seed, step, task, sample,
 *   call index) (task-sampler.ts, core/sampling-seeds.ts);
 * - a worker decodes concurrent requests in one batch, and batched matmuls round differently from
 *   a request decoded alone: concurrency 1 sends one model call at a time (episodes, evaluation);
 * - the worker's prefix cache makes a prompt's prefill depend on which sequences came before it
 *   (an evaluation's, or none after a resume): `--prefix-cache-mb 0` turns it off.
 * Servers envace does not start (`endpoint`, vLLM `rollout`, the judge) batch and cache as they
 * are configured: deterministicWarnings names them.
 */

/** The wall-clock fields of a metrics.jsonl line: the only ones two deterministic runs may differ in. */
export const WALL_CLOCK_FIELDS = ["timestamp", "time"] as const satisfies readonly (keyof StepMetrics)[];

/** A metrics line without its wall-clock fields (what two deterministic runs must agree on). */
export function withoutWallClock(m: StepMetrics): Omit<StepMetrics, (typeof WALL_CLOCK_FIELDS)[number]> {
  const { timestamp: _t, time: _time, ...rest } = m;
  return rest;
}

const NO_PREFIX_CACHE = ["--prefix-cache-mb", "0"];

type WorkerSpec = NonNullable<TrainConfig["worker"]>;

function withoutPrefixCache(w: WorkerSpec): WorkerSpec {
  const args = w.args ?? [];
  const i = args.indexOf("--prefix-cache-mb");
  // the last occurrence of a flag wins in argparse, so appending overrides one the config set
  if (i >= 0 && args[i + 1] === "0") return w;
  return { ...w, args: [...args, ...NO_PREFIX_CACHE] };
}

/** The config a `deterministic: true` run actually uses (unchanged otherwise; idempotent). */
export function deterministicConfig(c: TrainConfig): TrainConfig {
  if (!c.deterministic) return c;
  const sim = c.simulator;
  return {
    ...c,
    concurrency: 1,
    ...(c.worker ? { worker: withoutPrefixCache(c.worker) } : {}),
    ...(sim && "worker" in sim ? { simulator: { worker: withoutPrefixCache(sim.worker) } } : {}),
  };
}

/** What a deterministic run cannot control: servers it does not start. */
export function deterministicWarnings(c: TrainConfig): string[] {
  if (!c.deterministic) return [];
  const outside = [
    ...(c.endpoint !== undefined ? [`the policy endpoint ${c.endpoint}`] : []),
    ...(c.rollout ? ["the vLLM rollout servers"] : []),
    ...(c.simulator && !("worker" in c.simulator) ? [`the simulator endpoint ${c.simulator.base_url}`] : []),
    ...(c.judge ? [`the judge ${c.judge.base_url}`] : []),
  ];
  if (outside.length === 0) return [];
  return [
    `--deterministic: envace sends one request at a time, but ${outside.join(", ")} ` +
      "batch and cache as they are configured: identical metrics are guaranteed only when every model " +
      "is served by a worker envace starts",
  ];
}

/**
 * What a `--resume` cannot repeat. A tiny model restarts from its checkpoint's weights, and the
 * worker keeps the weights it starts with as the KL reference: an uninterrupted run's reference is
 * the initial model, a resumed run's the checkpoint (a Hugging Face model restarts from the
 * original weights and loads the checkpoint, so its reference does not move).
 */
export function resumeWarnings(c: TrainConfig): string[] {
  if (c.loss.kl_coef <= 0 || c.worker?.init === undefined) return [];
  return [
    "--resume with the tiny model and loss.kl_coef > 0: the KL reference becomes the checkpoint's " +
      "weights (an uninterrupted run keeps the initial ones), so the resumed run does not repeat it",
  ];
}
