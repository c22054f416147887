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

// `envace demo --rehearsal-prompt compact` (recipe v16's prompt; v17's default is compact-related):
// the run trains on its own SFT data, cached under v16's key, and says which prompt it ran.
describe("envace demo --rehearsal-prompt", () => {
  it("trains and reports v16's compact prompt under v16's cache key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-demo-prompt-"));
    const cache = join(dir, "c");
    const { stdout } = await demo([
      ...["--quick", "--sft-only", "--json", "--seed", "5", "--rehearsal-prompt", "compact"],
      ...["--out", join(dir, "run"), "--cache", cache],
    ]);
    const results = DemoResultsZ.parse(JSON.parse(stdout));
    expect(results.rehearsal_prompt).toBe("compact");
    expect(results.sft_gate.per_seed!.map((g) => g.seed)).toEqual([5]);
    const key = (plan: DemoPlan) => {
      const data = buildDemoData(plan, 5);
      return sftCacheKey(plan, 5, data, demoSftData(data, plan, 5));
    };
    const compact = key({ ...QUICK_PLAN, rehearsalPrompt: "compact" });
    // The keys the two prompts had before v17 made compact-related the default (computed on
    // 2d64b04): checkpoints cached by earlier runs stay valid under either prompt.
    expect(compact).toBe("4dd0c23988dd33c4");
    expect(key(QUICK_PLAN)).toBe("0048bf28dc2f5f68");
    expect(readdirSync(cache).filter((d) => !d.includes(".tmp"))).toEqual([`sft-${compact}`]);
    expect(existsSync(join(cache, `sft-${compact}`, "config.json"))).toBe(true);
  }, 900_000);

  it("refuses a prompt the demo does not train", async () => {
    await expect(demo(["--quick", "--rehearsal-prompt", "full"])).rejects.toMatchObject({
      stderr: expect.stringContaining("Allowed choices are compact, compact-related"),
    });
  }, 60_000);
});
