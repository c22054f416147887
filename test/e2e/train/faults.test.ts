import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import "../../../src/envs/toolworld/register.js";
import type { WorkerProcess } from "../../../src/engines/worker-supervisor.js";
import { loadTrainConfig, trainFromConfig } from "../../../src/train/index.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";

/**
 * kill -9 of the real worker in the middle of an optimizer step and in the middle of a step's
 * rollouts: the supervisor restarts it, the loop reloads the last checkpoint and redoes the step;
 * every step is logged once, none is lost.
 */
const root = resolve(import.meta.dirname, "../../..");

const metrics = (out: string): StepMetrics[] =>
  readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as StepMetrics);

function shortRun() {
  const base = loadTrainConfig(join(root, "examples", "rehearsal.yaml"));
  return { ...base, steps: 3, checkpoint_every: 1, eval_every: 0, eval_tasks: undefined, sft: undefined };
}

describe("envace train (real worker): kill -9 mid-operation", () => {
  it("during optim_step of step 2: restarted, step 2 redone from step 1's checkpoint, logged once", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "envace-e2e-kill-optim-")), "run");
    let worker: WorkerProcess | undefined;
    let stepsDone = 0;
    let killed = false;
    const summary = await trainFromConfig(shortRun(), {
      outDir: out,
      resume: false,
      onWorkers: (ws) => {
        worker = ws[0]!;
        const client = worker.client;
        const optimStep = client.optimStep.bind(client);
        client.optimStep = async (req) => {
          if (stepsDone === 1 && !killed) {
            killed = true;
            const pending = optimStep(req); // the request is on the wire…
            process.kill(worker!.pid!, "SIGKILL"); // …when the worker dies
            return pending;
          }
          return optimStep(req);
        };
      },
      onStep: (m) => (stepsDone = m.step),
    });
    expect(killed).toBe(true);
    expect(summary.restarts).toBeGreaterThanOrEqual(1);
    expect(summary.last_step).toBe(3);
    expect(metrics(out).map((m) => m.step)).toEqual([1, 2, 3]);
  });

  it("during step 2's rollouts: the episodes cut short are not trained on; the step is redone", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "envace-e2e-kill-rollout-")), "run");
    let pid: number | undefined;
    let stepsDone = 0;
    let killed = false;
    let episodesInStep2 = 0;
    const summary = await trainFromConfig(shortRun(), {
      outDir: out,
      resume: false,
      onWorkers: (ws) => (pid = ws[0]!.pid),
      onStep: (m) => (stepsDone = m.step),
      onEpisode: () => {
        if (stepsDone !== 1 || killed) return;
        // the first episode of step 2 has finished; the others are still being sampled
        if (++episodesInStep2 === 1) {
          killed = true;
          process.kill(pid!, "SIGKILL");
        }
      },
    });
    expect(killed).toBe(true);
    expect(summary.restarts).toBeGreaterThanOrEqual(1);
    const lines = metrics(out);
    expect(lines.map((m) => m.step)).toEqual([1, 2, 3]);
    // the logged step 2 is the redone one: all 8 episodes sampled by a live worker
    expect(lines[1]!.episodes).toBe(8);
    expect(lines[1]!.end_reasons.model_error ?? 0).toBe(0);
  });
});
