import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import "../../src/envs/toolworld/register.js"; // the examples' tasks: `generator: toolworld`
import { loadTrainConfig, type TrainConfig } from "../../src/train/config.js";
import { trainFromConfig, type TrainRunOptions } from "../../src/train/run.js";
import type { StepMetrics } from "../../src/train/step-metrics.js";

/**
 * The rehearsal example on vLLM, as `npm run test:vllm` and `npm run bench:rollout-engines` run it:
 * a base model from the rehearsal example's SFT warm-up, then `examples/vllm-lora.yaml` on it with
 * the endpoints and sizes given.
 */

const EXAMPLES = resolve(import.meta.dirname, "..", "..", "examples");

/**
 * Trains the rehearsal example's SFT warm-up (and its first, cheap step) under `dir` and returns a
 * copy of the step-0 model folder, as the example's instructions make it. vLLM loads it as it is:
 * it loads every top-level `*.safetensors` of a model folder, and the worker keeps its optimizer
 * state in the `trainer_state/` subfolder.
 */
export async function rehearsalBase(dir: string, onLog?: (line: string) => void): Promise<string> {
  const base = join(dir, "base");
  if (existsSync(join(base, "model.safetensors"))) return base;
  const c = loadTrainConfig(join(EXAMPLES, "rehearsal.yaml"));
  const out = join(dir, "rehearsal");
  rmSync(out, { recursive: true, force: true });
  await trainFromConfig(
    { ...c, steps: 1, eval_every: 0 },
    {
      outDir: out,
      resume: false,
      ...(onLog ? { onSftStep: (s) => s.step % 30 === 0 && onLog(`sft ${s.step}/${s.steps}`) } : {}),
    },
  );
  cpSync(join(out, "checkpoints", "step-0", "model"), base, { recursive: true });
  return base;
}

/**
 * `examples/vllm-lora.yaml` on `base` with rollouts on `endpoints` (OpenAI roots with `/v1`), or on
 * the worker when `endpoints` is empty (the same run otherwise: model, LoRA rank, loss, sizes).
 */
export function vllmRehearsalConfig(
  base: string,
  endpoints: string[],
  overrides: Partial<TrainConfig> = {},
): TrainConfig {
  const c = loadTrainConfig(join(EXAMPLES, "vllm-lora.yaml"));
  const { rollout, ...rest } = c;
  return {
    ...rest,
    worker: { ...c.worker!, model: base },
    ...(endpoints.length > 0
      ? { rollout: { ...rollout!, endpoints: endpoints.map((base_url) => ({ base_url })) } }
      : {}),
    ...overrides,
  };
}

/** Runs a config as `envace train` does and returns its metrics.jsonl lines. */
export async function runTrain(
  c: TrainConfig,
  outDir: string,
  opts: Omit<TrainRunOptions, "outDir" | "resume"> = {},
): Promise<StepMetrics[]> {
  rmSync(outDir, { recursive: true, force: true });
  await trainFromConfig(c, { ...opts, outDir, resume: false });
  return readJsonl<StepMetrics>(join(outDir, "metrics.jsonl"));
}

export function readJsonl<T>(path: string): T[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as T);
}
