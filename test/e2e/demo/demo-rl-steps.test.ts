import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { DemoResultsZ } from "../../../src/report/results.js";

const run = promisify(execFile);
const demo = (args: string[]) =>
  run(process.execPath, ["--import", "tsx", "src/cli/main.ts", "demo", ...args], {
    maxBuffer: 64 << 20,
    timeout: 900_000,
  });

const jsonLines = (file: string) =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { step: number });

// `envace demo --rl-steps N`: a longer (or shorter) RL budget for every arm, from the same SFT.
describe("envace demo --rl-steps", () => {
  it("trains each RL arm the steps asked for and says so in the results", async () => {
    const steps = QUICK_PLAN.rl.steps + 1;
    const dir = mkdtempSync(join(tmpdir(), "envace-demo-steps-"));
    const out = join(dir, "run");
    const { stdout, stderr } = await demo([
      ...["--quick", "--json", "--arms", "envace", "--no-testtime", "--rl-steps", String(steps)],
      ...["--out", out, "--cache", join(dir, "c")],
    ]);
    const results = DemoResultsZ.parse(JSON.parse(stdout));
    expect(results.rl_steps).toBe(steps);
    expect(results.arms.map((a) => a.name)).toEqual(["envace"]);
    // every step trained, none more (plain progress lines, one a step)
    expect(stderr.match(/\[seed 0\] envace step \d+:/g)).toHaveLength(steps);
    const metrics = jsonLines(join(out, "arms", "envace", "metrics.jsonl"));
    expect(metrics.map((m) => m.step)).toEqual(Array.from({ length: steps }, (_, k) => k + 1));
    // the curve starts at the SFT model and ends at the last step
    const curve = jsonLines(join(out, "arms", "envace", "curve.jsonl"));
    expect(curve[0]!.step).toBe(0);
    expect(curve.at(-1)!.step).toBe(steps);

    // an arm stopped before its result was kept (its checkpoints are there, its arm-result.json is
    // not): the same command again makes it anew instead of refusing the checkpoints it left
    rmSync(join(out, "arms", "envace", "arm-result.json"));
    const again = await demo([
      ...["--quick", "--json", "--arms", "envace", "--no-testtime", "--rl-steps", String(steps)],
      ...["--out", out, "--cache", join(dir, "c")],
    ]);
    expect(again.stderr).toMatch(/\[seed 0\] arm envace done in/);
    expect(DemoResultsZ.parse(JSON.parse(again.stdout)).arms.map((a) => a.name)).toEqual(["envace"]);
    const redone = jsonLines(join(out, "arms", "envace", "curve.jsonl")).map((p) => p.step);
    expect(redone).toEqual(curve.map((p) => p.step)); // one curve, not the old one and the new
  }, 900_000);

  it("refuses a step count that is not a positive integer", async () => {
    for (const bad of ["0", "2.5", "many"])
      await expect(demo(["--quick", "--rl-steps", bad])).rejects.toMatchObject({
        stderr: expect.stringContaining("--rl-steps must be an integer ≥ 1"),
      });
    // with --sft-only there is no RL arm to give the steps to (a temporary run directory, in case it runs)
    const dir = mkdtempSync(join(tmpdir(), "envace-demo-steps-"));
    const where = ["--out", join(dir, "run"), "--cache", join(dir, "cache")];
    await expect(demo(["--quick", "--sft-only", "--rl-steps", "3", ...where])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("option '--rl-steps <n>' cannot be used with option '--sft-only'"),
    });
  }, 120_000);
});
