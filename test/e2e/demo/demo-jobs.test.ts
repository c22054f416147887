import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DemoResultsZ } from "../../../src/report/results.js";

const run = promisify(execFile);

// `envace demo --seeds 2 --jobs 2`: two seeds side by side, as a user with cores to spare runs a
// multi-seed table; the results come back in seed order whichever seed finishes first.
describe("envace demo --seeds 2 --jobs 2", () => {
  it("runs both seeds at once and reports them in seed order", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-demo-jobs-"));
    const args = ["--import", "tsx", "src/cli/main.ts", "demo", "--quick", "--sft-only", "--json"];
    const { stdout, stderr } = await run(
      process.execPath,
      [
        ...args,
        "--seed",
        "5",
        "--seeds",
        "2",
        "--jobs",
        "2",
        "--out",
        join(dir, "run"),
        "--cache",
        join(dir, "c"),
      ],
      { maxBuffer: 64 << 20, timeout: 900_000 },
    );
    const results = DemoResultsZ.parse(JSON.parse(stdout));
    expect(results.seeds).toBe(2);
    expect(results.sft_gate.per_seed!.map((g) => g.seed)).toEqual([5, 6]);
    expect(results.arms.map((a) => a.name)).toEqual(["sft"]);
    expect(results.arms[0]!.success_per_seed!.envless).toHaveLength(2);
    // Side by side: seed 6 starts its SFT before seed 5's is done (one job would start it after).
    const lines = stderr.split("\n");
    const seed6Starts = lines.findIndex((l) => l.startsWith("[seed 6] sft:"));
    const seed5Done = lines.findIndex((l) => l.startsWith("[seed 5] SFT done"));
    expect(seed6Starts, stderr.slice(0, 3000)).toBeGreaterThanOrEqual(0);
    expect(seed5Done, stderr.slice(0, 3000)).toBeGreaterThanOrEqual(0);
    expect(seed6Starts).toBeLessThan(seed5Done);
    // Plain progress lines name their seed, so two interleaved seeds can be told apart.
    const steps = lines.filter((l) => /sft step \d+/.test(l));
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.every((l) => /^\[seed [56]\] /.test(l))).toBe(true);
  }, 900_000);

  it("refuses --jobs 0 with a clear error", async () => {
    const err = await run(process.execPath, [
      "--import",
      "tsx",
      "src/cli/main.ts",
      "demo",
      "--jobs",
      "0",
    ]).catch((e: { code: number; stderr: string }) => e);
    expect((err as { code: number }).code).not.toBe(0);
    expect((err as { stderr: string }).stderr).toMatch(/--jobs must be an integer ≥ 1/);
  });
});
