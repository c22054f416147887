import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../core/errors.js";

const isModel = (dir: string) =>
  existsSync(join(dir, "config.json")) || existsSync(join(dir, "adapter_config.json"));

/**
 * The model directory a `--checkpoint PATH` means: a saved model itself, a training checkpoint
 * `step-K/` (its `model/`, or `model-act/` when the roles had separate models: the agent is the
 * act role), or a training run's out directory (its latest `checkpoints/step-K/`). Anything else is
 * one clear line, before a worker is started on it.
 */
export function savedModelDir(path: string): string {
  if (!existsSync(path) || !statSync(path).isDirectory()) {
    throw new EnvaceError("INVALID_CONFIG", `--checkpoint ${path}: no such directory`);
  }
  if (isModel(path)) return path;
  for (const sub of ["model", "model-act"]) if (isModel(join(path, sub))) return join(path, sub);
  const ckpts = join(path, "checkpoints");
  if (existsSync(ckpts)) {
    const steps = readdirSync(ckpts)
      .map((n) => /^step-(\d+)$/.exec(n))
      .filter((m): m is RegExpExecArray => m !== null)
      .sort((a, b) => Number(b[1]) - Number(a[1]));
    for (const m of steps) {
      const dir = join(ckpts, m[0]);
      for (const sub of ["model", "model-act"]) if (isModel(join(dir, sub))) return join(dir, sub);
    }
  }
  throw new EnvaceError(
    "INVALID_CONFIG",
    `--checkpoint ${path}: not a saved model (no config.json), a checkpoint step-K/ or a run directory with checkpoints/`,
  );
}
