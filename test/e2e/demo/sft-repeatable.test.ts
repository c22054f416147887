import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
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
    expect(second.lossByStep, whereTheyPart(first.lossByStep, second.lossByStep)).toEqual(first.lossByStep);
    expect(basename(second.dir)).toBe(basename(first.dir));
    for (const file of ["model.safetensors", "tokenizer.json"]) {
      const a = readFileSync(join(first.dir, file));
      const b = readFileSync(join(second.dir, file));
      expect(a.length).toBeGreaterThan(0);
      expect(b.equals(a), `${file} differs between two trainings`).toBe(true);
    }
  }, 600_000);
});

/** What locates a failure on a machine we cannot log into (CI): the first step whose loss differs,
 * the CPU (MKL picks its kernels by it) and how loaded the machine was. */
function whereTheyPart(a: readonly number[], b: readonly number[]): string {
  const step = a.findIndex((x, i) => x !== b[i]) + 1;
  const cpu = cpus();
  const load = loadavg().map((x) => x.toFixed(1));
  const cpuinfo = existsSync("/proc/cpuinfo") ? readFileSync("/proc/cpuinfo", "utf8") : "";
  const flags = ["avx2", "avx512f", "amx_tile"].filter((f) => new RegExp(`\\b${f}\\b`).test(cpuinfo));
  const model = cpu[0]?.model ?? "?";
  return `parted at step ${step}; ${cpu.length} × ${model} (${flags.join(" ")}); load ${load.join(" ")}`;
}
