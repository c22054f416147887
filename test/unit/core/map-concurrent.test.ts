import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mapConcurrent } from "../../../src/core/map-concurrent.js";

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("mapConcurrent", () => {
  it("returns results in input order, never runs more than the limit at once, reports each item", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 5 }),
        async (delays, limit) => {
          let running = 0;
          let peak = 0;
          const reported: number[] = [];
          const out = await mapConcurrent(
            delays,
            limit,
            async (ms, i) => {
              running++;
              peak = Math.max(peak, running);
              await tick(ms);
              running--;
              return i * 10;
            },
            (r, i, done) => {
              expect(r).toBe(i * 10);
              reported.push(done);
            },
          );
          expect(out).toEqual(delays.map((_, i) => i * 10));
          expect(peak).toBeLessThanOrEqual(limit);
          expect(reported).toEqual(delays.map((_, i) => i + 1));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("after a failure starts nothing more and rejects only once the running calls have settled", async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = mapConcurrent([0, 1, 2, 3, 4], 2, async (i) => {
      started.push(i);
      if (i === 0) {
        await tick(5);
        throw new Error("seed 0 failed");
      }
      await tick(40);
      finished.push(i);
      return i;
    });
    await expect(run).rejects.toThrow("seed 0 failed");
    // item 1 was running when item 0 failed: it finished before the rejection; 2–4 never started
    expect(started).toEqual([0, 1]);
    expect(finished).toEqual([1]);
  });

  it("rejects with the first error when several calls fail", async () => {
    const run = mapConcurrent([30, 5], 2, async (ms, i) => {
      await tick(ms);
      throw new Error(`item ${i}`);
    });
    await expect(run).rejects.toThrow("item 1");
  });
});
