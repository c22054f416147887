import { describe, expect, it } from "vitest";
import { bench as runBench } from "./run-bench.js";

const bench = (args: string[]) => runBench("sft-micro-batch.ts", args);

describe("bench:sft-micro-batch", () => {
  it("trains the same steps under each micro-batch size: the same losses, a speed ratio (--json)", async () => {
    const r = await bench(["--seed", "2", "--steps", "7", "--tokens", "worker,512", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      steps: number;
      examples: number;
      runs: { micro_batch_tokens: number; steps_per_min: number; speedup: number; max_loss_diff: number }[];
    };
    expect(out.steps).toBe(7);
    expect(out.examples).toBeGreaterThan(1000);
    // `worker`: no flag; the size reported is the one the worker says it ran (its documented default)
    expect(out.runs.map((x) => x.micro_batch_tokens)).toEqual([8192, 512]);
    expect(out.runs[1]!.speedup).toBeCloseTo(out.runs[1]!.steps_per_min / out.runs[0]!.steps_per_min, 9);
    for (const x of out.runs) expect(x.steps_per_min).toBeGreaterThan(0);
    // 512 tokens split every batch into several micro-batches: the gradient must be the same sum
    expect(out.runs[1]!.max_loss_diff).toBeLessThan(1e-3);
  }, 300_000);

  it("refuses bad options with exit 2 before training", async () => {
    const r = await bench(["--tokens", "worker,abc"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--tokens: abc is neither an integer ≥ 64 nor "worker"');
    const s = await bench(["--steps", "3"]);
    expect(s.code).toBe(2);
    expect(s.stderr).toContain("--steps must be an integer ≥ 6");
  }, 60_000);
});
