import { execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { WALL_CLOCK_FIELDS, withoutWallClock } from "../../../src/train/deterministic.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../../..");
const cli = ["--import", "tsx", "src/cli/main.ts"];

/**
 * `envace train --deterministic` through the CLI with the real worker and the tiny model, on the
 * memory tasks of examples/tasks (SFT on their traces, rehearsal RL, evaluation against real MCP
 * memory servers after every step): two runs write the same metrics.jsonl up to its wall-clock
 * fields, and a run killed after step 1 and resumed writes what the uninterrupted run wrote.
 */
const dir = mkdtempSync(join(tmpdir(), "envace-e2e-determinism-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(): string {
  const example = parse(readFileSync(join(root, "examples/tasks/train-memory.yaml"), "utf8")) as Record<
    string,
    unknown
  >;
  const tasks = join(root, "examples/tasks/memory.jsonl");
  const config = {
    ...example,
    tasks,
    eval_tasks: tasks,
    steps: 3,
    checkpoint_every: 1,
    // an evaluation between steps: the uninterrupted run's worker has served it before step 2,
    // the resumed run's has not (with a prefix cache, their prefills could take different paths)
    eval_every: 1,
    temperature: 0.5,
    concurrency: 4, // --deterministic overrides it
  };
  const path = join(dir, "train.json");
  writeFileSync(path, JSON.stringify(config));
  return path;
}

async function train(config: string, out: string, resume = false): Promise<string> {
  const args = [...cli, "train", "--config", config, "--out", out, "--deterministic"];
  const { stderr } = await run(process.execPath, resume ? [...args, "--resume"] : args, {
    cwd: root,
    maxBuffer: 64 << 20,
  });
  return stderr;
}

/** Runs the CLI and SIGKILLs it once it reports `step K/`; the worker dies with it (PR_SET_PDEATHSIG). */
function trainKilledAfter(step: number, config: string, out: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(
      process.execPath,
      [...cli, "train", "--config", config, "--out", out, "--deterministic"],
      { cwd: root, stdio: ["ignore", "ignore", "pipe"] },
    );
    let log = "";
    child.stderr.on("data", (d: Buffer) => {
      log += d.toString();
      if (new RegExp(`^step ${step}/`, "m").test(log) && child.exitCode === null) child.kill("SIGKILL");
    });
    child.on("error", fail);
    child.on("exit", (_code, signal) =>
      signal === "SIGKILL" ? done(log) : fail(new Error(`train was not killed (exit ${_code}):\n${log}`)),
    );
  });
}

const metricLines = (out: string): StepMetrics[] =>
  readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as StepMetrics);

/** Digests of the final checkpoint's weights and optimizer state (AdamW moments, step, torch RNG). */
const finalState = (out: string) =>
  ["model.safetensors", "trainer_state/tensors.safetensors"].map((f) =>
    createHash("sha256")
      .update(readFileSync(join(out, "checkpoints", "step-3", "model", f)))
      .digest("hex"),
  );

describe("envace train --deterministic (real worker, tiny model)", () => {
  let config: string;
  const first = join(dir, "first");
  beforeAll(async () => {
    config = writeConfig();
    await train(config, first);
  });

  it("two runs with the same seed and config write the same metrics.jsonl but for wall-clock fields", async () => {
    const second = join(dir, "second");
    await train(config, second);
    const a = metricLines(first);
    const b = metricLines(second);
    expect(a.map((m) => m.step)).toEqual([1, 2, 3]);
    // Not vacuous: the run sampled both roles, updated the weights and evaluated on real servers.
    expect(a.some((m) => m.rows.rehearse > 0)).toBe(true);
    expect(a.some((m) => (m.grad_norm ?? 0) > 0)).toBe(true);
    expect(a.every((m) => m.eval !== undefined)).toBe(true);
    // The excluded fields are the wall-clock ones, and only they.
    expect(WALL_CLOCK_FIELDS).toEqual(["timestamp", "time"]);
    expect(a.every((m) => typeof m.timestamp === "string" && m.time.sample > 0)).toBe(true);
    expect(b.map(withoutWallClock)).toEqual(a.map(withoutWallClock));
    expect(finalState(second)).toEqual(finalState(first));
    // What ran is recorded: one request at a time, no prefix cache.
    const resolved = JSON.parse(readFileSync(join(second, "config.resolved.json"), "utf8")) as {
      concurrency: number;
      deterministic: boolean;
      worker: { args: string[] };
    };
    expect(resolved).toMatchObject({ concurrency: 1, deterministic: true });
    expect(resolved.worker.args).toEqual(["--prefix-cache-mb", "0"]);
  });

  it("a run killed after step 1 and resumed repeats what the uninterrupted run did", async () => {
    const out = join(dir, "resumed");
    await trainKilledAfter(1, config, out);
    const resumeLog = await train(config, out, true);
    expect(resumeLog).not.toMatch(/^step 1\//m); // step 1 is not redone
    expect(resumeLog).toMatch(/^step 3\/3/m);
    expect(metricLines(out).map(withoutWallClock)).toEqual(metricLines(first).map(withoutWallClock));
    expect(finalState(out)).toEqual(finalState(first));
    expect(readFileSync(join(out, "runs.jsonl"), "utf8").trim().split("\n")).toHaveLength(2);
  });
});
