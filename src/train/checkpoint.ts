import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../core/errors.js";
import type { PolicyRole } from "../core/messages.js";

/**
 * Checkpoints: `OUT/checkpoints/step-K/` holds the worker's save (`model/`, or `model-act/` and
 * `model-rehearse/` for separate models) and `state.json`, written last and atomically, so a
 * folder without `state.json` is an interrupted save and is ignored.
 */
export interface LoopState {
  /** Last completed optimizer step. */
  step: number;
  /** Position in the task stream (tasks consumed so far). */
  sampling_position: number;
  /** Lines of metrics.jsonl written up to and including this step. */
  metrics_lines: number;
  seed: number;
}

export function checkpointDir(outDir: string, step: number): string {
  return join(outDir, "checkpoints", `step-${step}`);
}

/** Where the worker saves the model(s) of a checkpoint. `null` role: the shared model. */
export function modelDir(ckptDir: string, role: PolicyRole | null): string {
  return join(ckptDir, role === null ? "model" : `model-${role}`);
}

export function writeLoopState(ckptDir: string, state: LoopState): void {
  mkdirSync(ckptDir, { recursive: true });
  const tmp = join(ckptDir, "state.json.tmp");
  writeFileSync(tmp, JSON.stringify(state, null, 2) + "\n");
  renameSync(tmp, join(ckptDir, "state.json"));
}

/** The complete checkpoint with the highest step, or null when there is none. */
export function latestCheckpoint(outDir: string): { dir: string; state: LoopState } | null {
  const root = join(outDir, "checkpoints");
  if (!existsSync(root)) return null;
  let best: { dir: string; state: LoopState } | null = null;
  for (const name of readdirSync(root)) {
    const m = /^step-(\d+)$/.exec(name);
    if (!m) continue;
    const dir = join(root, name);
    const file = join(dir, "state.json");
    if (!existsSync(file)) continue;
    let state: LoopState;
    try {
      state = JSON.parse(readFileSync(file, "utf8")) as LoopState;
    } catch (e) {
      throw new EnvaceError("INVALID_DATA_FILE", `corrupt checkpoint state ${file}: ${(e as Error).message}`);
    }
    if (!best || state.step > best.state.step) best = { dir, state };
  }
  return best;
}

/** Keep the first `lines` lines of a JSONL file (drops metrics of steps after the checkpoint). */
export function truncateJsonl(path: string, lines: number): void {
  if (!existsSync(path)) {
    if (lines > 0)
      throw new EnvaceError(
        "INVALID_DATA_FILE",
        `${path} is missing but the checkpoint expects ${lines} lines`,
      );
    return;
  }
  const kept = readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "");
  if (kept.length < lines) {
    throw new EnvaceError(
      "INVALID_DATA_FILE",
      `${path} has ${kept.length} lines but the checkpoint expects ${lines}`,
    );
  }
  writeFileSync(
    path,
    kept
      .slice(0, lines)
      .map((l) => l + "\n")
      .join(""),
  );
}
