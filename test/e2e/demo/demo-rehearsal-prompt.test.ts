import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN, type DemoPlan } from "../../../src/demo/layout.js";
import { demoSftData, sftCacheKey } from "../../../src/demo/sft-stage.js";
import { DemoResultsZ } from "../../../src/report/results.js";

const run = promisify(execFile);
const demo = (args: string[]) =>
  run(process.execPath, ["--import", "tsx", "src/cli/main.ts", "demo", ...args], {
    maxBuffer: 64 << 20,
    timeout: 900_000,
  });

// `envace demo --rehearsal-prompt compact-related` (issue 11's experiment): the run trains on its own
// SFT data, cached under its own key, and says which prompt it ran.
describe("envace demo --rehearsal-prompt", () => {
  it("trains and reports the compact-related prompt under its own cache key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-demo-prompt-"));
    const cache = join(dir, "c");
    const { stdout } = await demo([
      ...["--quick", "--sft-only", "--json", "--seed", "5", "--rehearsal-prompt", "compact-related"],
      ...["--out", join(dir, "run"), "--cache", cache],
    ]);
    const results = DemoResultsZ.parse(JSON.parse(stdout));
    expect(results.rehearsal_prompt).toBe("compact-related");
    expect(results.sft_gate.per_seed!.map((g) => g.seed)).toEqual([5]);
    const key = (plan: DemoPlan) => {
      const data = buildDemoData(plan, 5);
      return sftCacheKey(plan, 5, data, demoSftData(data, plan, 5));
    };
    const related = key({ ...QUICK_PLAN, experiments: { rehearsalPrompt: "compact-related" } });
    expect(related).not.toBe(key(QUICK_PLAN));
    expect(readdirSync(cache).filter((d) => !d.includes(".tmp"))).toEqual([`sft-${related}`]);
    expect(existsSync(join(cache, `sft-${related}`, "config.json"))).toBe(true);
  }, 900_000);

  it("refuses a prompt the demo does not train", async () => {
    await expect(demo(["--quick", "--rehearsal-prompt", "full"])).rejects.toMatchObject({
      stderr: expect.stringContaining("Allowed choices are compact, compact-related"),
    });
  }, 60_000);
});
