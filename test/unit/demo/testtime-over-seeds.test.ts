import { describe, expect, it } from "vitest";
import { testTimeOverSeeds } from "../../../src/demo/aggregate.js";
import { resultsMarkdown } from "../../../src/report/markdown.js";
import type { DemoResults, TestTimeRow } from "../../../src/report/results.js";

const row = (mode: string, mean: number, held?: number): TestTimeRow => ({
  policy: "envace",
  mode,
  n: mode === "none" ? 0 : 4,
  ...(held !== undefined ? { guard: true, held_calls: held } : {}),
  success: { mean, ci95: 0.05, n: 152 },
  real_calls_during_rehearsal: 0,
  rehearsal_tokens_per_task: mode === "none" ? 0 : 2000 + 100 * mean,
});

// issue 11's test-time target is per seed: a multi-seed run must keep each seed's rows
describe("test-time rows over seeds", () => {
  const seeds = [
    [row("none", 0.75), row("parallel", 0.8, 3)],
    [row("none", 0.5), row("parallel", 0.52, 7)],
  ];

  it("pools success over seeds, keeps each seed's, and sums the writes held back", () => {
    const [none, parallel] = testTimeOverSeeds(seeds);
    expect(none!.success.mean).toBeCloseTo(0.625, 9);
    expect(none!.success_per_seed).toEqual([0.75, 0.5]);
    expect(none!.held_calls).toBeUndefined();
    expect(parallel!.success_per_seed).toEqual([0.8, 0.52]);
    expect(parallel!.held_calls).toBe(10);
    expect(parallel!.rehearsal_tokens_per_task).toBeCloseTo((2080 + 2052) / 2, 9);
  });

  it("matches rows by policy, mode, N, memory and guard, not by position", () => {
    const [none, parallel, sft] = testTimeOverSeeds([
      [row("none", 0.75), row("parallel", 0.8, 3)],
      [{ ...row("none", 0.6), policy: "sft" }, row("parallel", 0.52, 7), row("none", 0.5)],
    ]);
    expect(none!.success_per_seed).toEqual([0.75, 0.5]);
    expect(parallel!.success_per_seed).toEqual([0.8, 0.52]);
    // a row only one seed measured: the other seed's entry is null, and the mean is that seed's
    expect(sft!.policy).toBe("sft");
    expect(sft!.success_per_seed).toEqual([null, 0.6]);
    expect(sft!.success.mean).toBeCloseTo(0.6, 9);
  });

  it("leaves a seed without a mean out of the pooled success instead of counting it as 0", () => {
    const empty: TestTimeRow = { ...row("none", 0), success: { mean: null, ci95: null, n: 0 } };
    const [none] = testTimeOverSeeds([[row("none", 0.75)], [empty], [row("none", 0.5)]]);
    expect(none!.success.mean).toBeCloseTo(0.625, 9);
    expect(none!.success_per_seed).toEqual([0.75, null, 0.5]);
  });

  it("leaves one seed's rows as they are", () => {
    expect(testTimeOverSeeds([seeds[0]!])).toEqual(seeds[0]);
  });

  it("tables each seed with its change against the policy's none row", () => {
    const results: DemoResults = {
      minutes: 1,
      report: "r",
      sft_gate: { first_call_copy: 1, write_call_copy: 1, fidelity: 1, fidelity_unseen: 1, passed: true },
      arms: [],
      testtime: testTimeOverSeeds(seeds),
    };
    const md = resultsMarkdown(results);
    expect(md).toContain("| 75.0 / 50.0 | 0 | – | – | 0 |"); // the none row: each seed's success
    expect(md).toContain("| 80.0 (+5.0) / 52.0 (+2.0) | 0 | 10 | – |");
  });

  it("sums the steps written without the note, and keeps rows of another note use apart", () => {
    const real = (mean: number, replaced: number): TestTimeRow => ({
      ...row("parallel", mean, 1),
      note_use: "decide",
      rewritten_steps: replaced,
    });
    const [none, noted, rewritten] = testTimeOverSeeds([
      [row("none", 0.75), row("parallel", 0.8, 3), real(0.82, 4)],
      [row("none", 0.5), row("parallel", 0.52, 7), real(0.6, 5)],
    ]);
    expect(none!.rewritten_steps).toBeUndefined();
    expect(noted!.success_per_seed).toEqual([0.8, 0.52]);
    expect(noted!.rewritten_steps).toBeUndefined();
    expect(rewritten!.success_per_seed).toEqual([0.82, 0.6]);
    expect(rewritten!.rewritten_steps).toBe(9);
    const md = resultsMarkdown({
      minutes: 1,
      report: "r",
      sft_gate: { first_call_copy: 1, write_call_copy: 1, fidelity: 1, fidelity_unseen: 1, passed: true },
      arms: [],
      testtime: [none!, rewritten!],
    });
    expect(md).toContain("| 82.0 (+7.0) / 60.0 (+10.0) | 0 | 2 | 9 replaced |");
  });
});
