import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN, type DemoPlan } from "../../../src/demo/layout.js";
import { sftCheckpoint, type SftProgress } from "../../../src/demo/sft-stage.js";

// Recipe v14: an SFT checkpoint that fails the far-copy check on held-back logs is trained again
// from another initialisation. A 20-task, one-epoch SFT cannot copy a request's day or amount, so
// its first run fails the check and the stage makes a second one.
describe("demo SFT stage with attempts (real worker, tiny model)", () => {
  it("trains again when the copy check fails, keeps the best run, and reuses both from the cache", async () => {
    const plan: DemoPlan = { ...QUICK_PLAN, trainTasksPerDomain: 20, sftAttempts: 2 };
    const data = buildDemoData(plan, 3);
    const cache = mkdtempSync(join(tmpdir(), "envace-sft-attempts-"));
    const events: SftProgress[] = [];
    const first = await sftCheckpoint(data, plan, 3, cache, (p) => events.push(p));

    expect(first.attempts).toHaveLength(2);
    expect(first.attempts.every((a) => !a.cached && !a.check.passed)).toBe(true);
    expect(first.check.write.total + first.check.reply.total).toBeGreaterThan(0);
    const [a0, a1] = first.attempts.map((a) => a.check.score);
    expect(first.check.score).toBe(Math.max(a0!, a1!));
    // Attempt 0 is the plain run's folder; attempt 1 its `-a1` sibling, each with its check kept.
    const key = basename(first.dir).replace(/-a1$/, "");
    for (const dir of [key, `${key}-a1`]) {
      expect(existsSync(join(cache, dir, "config.json")), dir).toBe(true);
      const kept = JSON.parse(readFileSync(join(cache, dir, "copy-check.json"), "utf8"));
      expect(kept.score.passed).toBe(false);
    }
    expect(events.filter((e) => e.phase === "check").map((e) => e.attempt)).toEqual([0, 1]);
    expect(events.some((e) => e.phase === "train" && e.attempt === 1)).toBe(true);

    // A kept check that cannot be read is made again, not trusted and not fatal.
    writeFileSync(join(cache, key, "copy-check.json"), "{not json");
    const again = await sftCheckpoint(data, plan, 3, cache);
    expect(again.cached).toBe(true);
    expect(again.dir).toBe(first.dir);
    expect(again.attempts.map((a) => a.check)).toEqual(first.attempts.map((a) => a.check));
    expect(JSON.parse(readFileSync(join(cache, key, "copy-check.json"), "utf8")).score).toEqual(
      first.attempts[0]!.check,
    );
  }, 900_000);
});
