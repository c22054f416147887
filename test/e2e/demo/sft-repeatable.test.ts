import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN, type DemoPlan } from "../../../src/demo/layout.js";
import { sftCheckpoint } from "../../../src/demo/sft-stage.js";

// The demo's SFT stage trained twice, from nothing, into two caches: the same weights to the bit.
// Its figures are read as one training per seed (RESULTS.md); that reading needs this on one machine.
describe("demo SFT stage (real worker, tiny model)", () => {
  it("trains the same checkpoint twice, bit for bit", async () => {
    const plan: DemoPlan = { ...QUICK_PLAN, trainTasksPerDomain: 20 };
    const data = buildDemoData(plan, 3);
    const dir = mkdtempSync(join(tmpdir(), "envace-sft-repeat-"));
    const first = await sftCheckpoint(data, plan, 3, join(dir, "a"));
    const second = await sftCheckpoint(data, plan, 3, join(dir, "b"));
    expect(first.cached).toBe(false);
    expect(second.cached).toBe(false);
    expect(first.lossByStep.length).toBeGreaterThan(3);
    expect(second.lossByStep).toEqual(first.lossByStep);
    expect(basename(second.dir)).toBe(basename(first.dir));
    for (const file of ["model.safetensors", "tokenizer.json"]) {
      const a = readFileSync(join(first.dir, file));
      const b = readFileSync(join(second.dir, file));
      expect(a.length).toBeGreaterThan(0);
      expect(b.equals(a), `${file} differs between two trainings`).toBe(true);
    }
  }, 600_000);
});
