import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { DemoResultsZ, type DemoResults } from "../../../src/report/results.js";

const run = promisify(execFile);

// `envace demo --seeds 2 --jobs 2`: two seeds side by side, as a user with cores to spare runs a
// multi-seed table; the results come back in seed order whichever seed finishes first.
describe("envace demo --seeds 2 --jobs 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "envace-demo-jobs-"));
  const out = join(dir, "run");
  const demo = (jobs: number, cache = join(dir, "c")) =>
    run(
      process.execPath,
      [
        ...["--import", "tsx", "src/cli/main.ts", "demo", "--quick", "--sft-only", "--json"],
        ...["--seed", "5", "--seeds", "2", "--jobs", String(jobs), "--out", out, "--cache", cache],
      ],
      { maxBuffer: 64 << 20, timeout: 900_000 },
    );
  // the first run's results: the reuse test compares against them (and makes them when run alone)
  let first: DemoResults | undefined;

  it("runs both seeds at once and reports them in seed order", async () => {
    const { stdout, stderr } = await demo(2);
    const results = DemoResultsZ.parse(JSON.parse(stdout));
    first = results;
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

  it("keeps each finished arm: a rerun with the same --out reuses it, and an arm that fails stops nothing else", async () => {
    first ??= DemoResultsZ.parse(JSON.parse((await demo(2)).stdout));
    // what a run measures, without how long it took or where its report went
    const figures = (r: DemoResults) => ({
      ...r,
      minutes: 0,
      report: "",
      arms: r.arms.map((a) => ({ ...a, minutes: 0 })),
    });
    // 1. the same command again: both seeds' arms come from their arm-result.json, figures unchanged
    const again = await demo(2);
    expect(again.stderr).toMatch(/\[seed 5\] arm sft reused from .*seed-5\/arm-result\.json/);
    expect(again.stderr).toMatch(/\[seed 6\] arm sft reused from/);
    expect(again.stderr).not.toMatch(/arm sft done/);
    expect(figures(DemoResultsZ.parse(JSON.parse(again.stdout)))).toEqual(figures(first!));
    // 2. seed 5's arm cannot run (its folder is a file): it fails, and seed 6, started after it
    //    (one job), still finishes; the run exits non-zero naming the failure and how to go on
    const seed5 = join(out, "arms", "sft", "seed-5");
    const seed6Result = join(out, "arms", "sft", "seed-6", "arm-result.json");
    rmSync(seed5, { recursive: true });
    writeFileSync(seed5, "not a folder\n");
    const kept6 = statSync(seed6Result).mtimeMs;
    const failed = await demo(1).catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(1);
    const err = (failed as { stderr: string }).stderr;
    expect(err).toMatch(/\[seed 5\] arm sft FAILED: /);
    expect(err).toMatch(/\[seed 6\] arm sft reused from/);
    expect(err).toMatch(/\[ARMS_FAILED\] 1 failure .*\n  seed 5 sft: /);
    expect(err).toContain(`run the same command with --out ${out}`);
    expect(statSync(seed6Result).mtimeMs).toBe(kept6);
    // 3. once it can run, only seed 5's arm runs again, and gives the figures it gave the first time
    rmSync(seed5);
    const redo = await demo(2);
    expect(redo.stderr).toMatch(/\[seed 5\] arm sft done in/);
    expect(redo.stderr).toMatch(/\[seed 6\] arm sft reused from/);
    expect(figures(DemoResultsZ.parse(JSON.parse(redo.stdout)))).toEqual(figures(first!));
  }, 900_000);

  it("says a seed whose SFT stage fails when it fails, and runs the next seed", async () => {
    // the cache folder is a link to a volume that is gone: it passes the CLI's check on paths (its
    // folder above can hold it) but no SFT checkpoint can be made or read in it, on either seed
    const cache = join(dir, "cache-gone");
    symlinkSync(join(dir, "unmounted", "cache"), cache);
    const failed = await demo(1, cache).catch((e: { code: number; stderr: string }) => e);
    expect((failed as { code: number }).code).toBe(1);
    const lines = (failed as { stderr: string }).stderr.split("\n");
    const at = (re: RegExp) => lines.findIndex((l) => re.test(l));
    // seed 5's failure is printed before seed 6 (one job: started after it) begins its data stage
    const seed5Failed = at(/^\[seed 5\] FAILED in its SFT stage: .*ENOENT.*other seeds go on/);
    expect(seed5Failed, lines.join("\n").slice(0, 3000)).toBeGreaterThanOrEqual(0);
    expect(seed5Failed).toBeLessThan(at(/^\[seed 6\] data$/));
    expect(at(/^\[seed 6\] FAILED in its SFT stage: /)).toBeGreaterThan(seed5Failed);
    expect(lines.join("\n")).toMatch(/\[ARMS_FAILED\] 2 failures .*\n  seed 5: .*\n  seed 6: /);
  }, 300_000);

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
