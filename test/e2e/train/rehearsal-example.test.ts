import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import type { StepMetrics } from "../../../src/train/step-metrics.js";
import type { TrainSummary } from "../../../src/train/loop.js";
import "../../../src/envs/toolworld/register.js"; // configs use `generator: toolworld`

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../../..");

/** `envace train` through the CLI (tsx), as a user runs it; returns the --json summary. */
async function train(config: string, out: string, resume: boolean): Promise<TrainSummary> {
  const args = [
    "tsx",
    "src/cli/main.ts",
    "train",
    "--config",
    config,
    "--out",
    out,
    "--json",
    ...(resume ? ["--resume"] : []),
  ];
  const { stdout } = await run("npx", args, { cwd: root, maxBuffer: 64 << 20 });
  return JSON.parse(stdout.trim().split("\n").pop()!) as TrainSummary;
}

const metrics = (out: string): StepMetrics[] =>
  readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as StepMetrics);

describe("envace train (real worker, tiny model): the rehearsal example", () => {
  it("runs 2 steps with zero environment calls, checkpoints, and resumes to step 3", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-e2e-train-"));
    const example = parse(readFileSync(join(root, "examples", "rehearsal.yaml"), "utf8")) as Record<
      string,
      unknown
    >;
    // The example as written, shortened: 2 steps, a short SFT warm-up, eval only at the end.
    const cfg = {
      ...example,
      steps: 2,
      checkpoint_every: 1,
      eval_every: 0,
      sft: { epochs: 3, lr: 0.003, batch_size: 8 },
    };
    const cfgPath = join(dir, "rehearsal.json");
    writeFileSync(cfgPath, JSON.stringify(cfg));
    const out = join(dir, "run");

    const first = await train(cfgPath, out, false);
    expect(first).toMatchObject({ first_step: 1, last_step: 2, restarts: 0 });
    const lines = metrics(out);
    expect(lines.map((m) => m.step)).toEqual([1, 2]);
    for (const m of lines) {
      expect(m.env_calls).toBe(0); // world rehearsal: no real tool call while training
      expect(m.episodes).toBe(8);
      expect(m.rows.act).toBeGreaterThanOrEqual(8);
      expect(m.tokens.act).toBeGreaterThan(m.rows.act);
      expect(m.time.sample).toBeGreaterThan(0);
    }
    expect(lines[1]!.eval).toMatchObject({ episodes: 2 });
    // The loss computes logprobs at the rollouts' temperature (0.5 in the example). Each step makes
    // one update, after all its forward_backward calls, with the weights that sampled the step's
    // rollouts: every trained token's PPO ratio is 1 and nothing is clipped. Per token, float32
    // rounding differs between the KV-cached decode and the teacher-forced pass (largest deviation
    // measured over 4 steps: 1.03e-5 at T = 0.5, which doubles logit error); before the fix ratios
    // were off by tens of percent. The mean over a role's tokens is within 1e-5.
    expect(example.temperature).toBe(0.5);
    for (const m of lines) {
      expect(m.ratio.act, "act rows' ratio reported").not.toBeNull();
      for (const role of ["act", "rehearse"] as const) {
        const r = m.ratio[role];
        if (r === null) continue;
        expect(Math.abs(r.mean - 1), `${role} mean ratio at step ${m.step}`).toBeLessThan(1e-5);
        expect(Math.abs(r.min - 1), `${role} min ratio at step ${m.step}`).toBeLessThan(5e-5);
        expect(Math.abs(r.max - 1), `${role} max ratio at step ${m.step}`).toBeLessThan(5e-5);
      }
      expect(m.clip_frac).toBe(0);
    }
    for (const k of [0, 1, 2]) {
      expect(existsSync(join(out, "checkpoints", `step-${k}`, "state.json"))).toBe(true);
      expect(existsSync(join(out, "checkpoints", `step-${k}`, "model", "config.json"))).toBe(true);
    }

    // Resume with one more step: nothing repeated or lost.
    writeFileSync(cfgPath, JSON.stringify({ ...cfg, steps: 3 }));
    const second = await train(cfgPath, out, true);
    expect(second).toMatchObject({ first_step: 3, last_step: 3 });
    expect(metrics(out).map((m) => m.step)).toEqual([1, 2, 3]);
    expect(JSON.parse(readFileSync(join(out, "checkpoints", "step-3", "state.json"), "utf8"))).toMatchObject({
      step: 3,
      metrics_lines: 3,
    });
  });
});

describe("envace train (real worker): a worker killed mid-run", () => {
  it("is restarted by the supervisor; the loop reloads the last checkpoint and logs each step once", async () => {
    const { loadTrainConfig, trainFromConfig } = await import("../../../src/train/index.js");
    const dir = mkdtempSync(join(tmpdir(), "envace-e2e-crash-"));
    const base = loadTrainConfig(join(root, "examples", "rehearsal.yaml"));
    const config = {
      ...base,
      steps: 3,
      checkpoint_every: 1,
      eval_every: 0,
      eval_tasks: undefined,
      sft: undefined,
    };
    const out = join(dir, "run");
    let pid: number | undefined;
    let killed = false;
    const summary = await trainFromConfig(config, {
      outDir: out,
      resume: false,
      onWorkers: (ws) => (pid = ws[0]!.pid),
      onStep: (m) => {
        if (m.step === 1 && !killed) {
          killed = true;
          process.kill(pid!, "SIGKILL"); // between steps 1 and 2, after step 1's checkpoint
        }
      },
    });
    expect(killed).toBe(true);
    expect(summary.restarts).toBeGreaterThanOrEqual(1);
    expect(summary.last_step).toBe(3);
    expect(metrics(out).map((m) => m.step)).toEqual([1, 2, 3]);
  });
});

describe("envace train (real worker): the policy sharded over two processes", () => {
  it("passes the config's nproc and parallel to the worker and trains a step under FSDP", async () => {
    const { loadTrainConfig, trainFromConfig } = await import("../../../src/train/index.js");
    const dir = mkdtempSync(join(tmpdir(), "envace-e2e-fsdp-"));
    const base = loadTrainConfig(join(root, "examples", "rehearsal.yaml"));
    const config = {
      ...base,
      worker: { ...base.worker!, nproc: 2, parallel: "fsdp" as const, device: "cpu" },
      steps: 1,
      checkpoint_every: 1,
      eval_every: 0,
      eval_tasks: undefined,
      sft: undefined,
    };
    const out = join(dir, "run");
    let health: Promise<unknown> | undefined;
    const summary = await trainFromConfig(config, {
      outDir: out,
      resume: false,
      onWorkers: (ws) => (health = ws[0]!.client.health()),
    });
    expect(summary.last_step).toBe(1);
    expect(await health).toMatchObject({ world_size: 2, parallel: "fsdp" });
    expect(metrics(out)[0]!.episodes).toBe(8);
    expect(existsSync(join(out, "checkpoints", "step-1", "model", "config.json"))).toBe(true);
  });
});
