import { createHash } from "node:crypto";
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { TestTimeRow } from "../report/results.js";
import type { ArmRun } from "./aggregate.js";
import type { ArmSpec } from "./arms.js";
import type { DemoPlan } from "./layout.js";
import type { SeedGate } from "./run-seed.js";

/** A finished arm of one seed, as `trainAndEvaluateArm` returns it. */
export interface FinishedArm {
  run: ArmRun;
  gate?: SeedGate;
  testtime: TestTimeRow[];
}

/** Where an arm's finished result is kept, in its arm folder. */
export function armResultFile(armDir: string): string {
  return join(armDir, "arm-result.json");
}

/**
 * What a finished arm's figures depend on: the code that ran (`codeVersion`), the plan, the seed,
 * the arm, the SFT checkpoint it started from (its cache folder is named by its key) and whether
 * test-time rows were asked for. A kept result is reused only under the same key: another version
 * of the code, plan, seed or SFT run redoes the arm.
 */
export function armResultKey(o: {
  plan: DemoPlan;
  seed: number;
  spec: ArmSpec;
  sftDir: string;
  testTime: boolean;
  /** The code's fingerprint (`codeVersion()`, taken by the caller when its run started). */
  code: string;
}): string {
  const what = JSON.stringify({
    code: o.code,
    plan: o.plan,
    seed: o.seed,
    spec: o.spec,
    sft: basename(o.sftDir),
    testTime: o.testTime,
  });
  return createHash("sha256").update(what).digest("hex").slice(0, 16);
}

/**
 * The arm's kept result in `armDir` when it was written under `key`; undefined when there is none,
 * it cannot be read, or its key differs (the arm is then run again and the file replaced).
 */
export function readFinishedArm(armDir: string, key: string): FinishedArm | undefined {
  const file = armResultFile(armDir);
  if (!existsSync(file)) return undefined;
  try {
    const kept = JSON.parse(readFileSync(file, "utf8")) as { key?: unknown; result?: FinishedArm };
    return kept.key === key && kept.result ? kept.result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Keeps a finished arm's result beside its metrics, written to a temporary file and renamed: a
 * run killed while writing never leaves a half file that a later run would trust. Why: with
 * several seeds side by side, one arm that fails (a worker lost) fails the run only after every
 * other seed has finished, and a rerun with the same `--out` should redo that arm, not the hour
 * of arms that finished.
 */
export function writeFinishedArm(armDir: string, key: string, result: FinishedArm): void {
  const file = armResultFile(armDir);
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify({ key, result }) + "\n");
  renameSync(tmp, file);
}
