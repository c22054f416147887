import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  buildReportHtml,
  meanCI,
  readCurves,
  readNetShares,
  readStepPoints,
  resultsMarkdown,
  writeReport,
} from "../../../src/report/index.js";
import type { DemoResults } from "../../../src/report/index.js";
import { makeDemoRunDir } from "../../helpers/demo-run-fixture.js";

/** A seed's far-copy check as the results schema has it (so a new field reaches this test's rows). */
type CopyCheck = NonNullable<NonNullable<DemoResults["sft_gate"]["per_seed"]>[number]["copy_check"]>;

describe("meanCI", () => {
  it("matches a hand-computed t interval", () => {
    const m = meanCI([1, 0, 1, 1]);
    expect(m.mean).toBeCloseTo(0.75);
    // sd = 0.5, se = 0.25, t(3) = 3.182
    expect(m.ci95).toBeCloseTo(3.182 * 0.25, 6);
    expect(Number.isNaN(meanCI([0.4]).ci95)).toBe(true);
    expect(Number.isNaN(meanCI([]).mean)).toBe(true);
  });
});

/** Writes one seed's metrics.jsonl of an arm, as a multi-seed demo run lays it out. */
function seedLog(dir: string, arm: string, seed: number, text: string): void {
  mkdirSync(join(dir, "arms", arm, `seed-${seed}`), { recursive: true });
  writeFileSync(join(dir, "arms", arm, `seed-${seed}`, "metrics.jsonl"), text);
}

describe("report", () => {
  it("reads per-role rewards and skips a truncated line", () => {
    const { dir } = makeDemoRunDir();
    const points = readStepPoints(dir);
    const envace = points.filter((p) => p.arm === "envace");
    expect(envace).toHaveLength(6);
    expect(envace.find((p) => p.step === 3 && p.role === "rehearse")?.reward).toBeCloseTo(0.7);
    // loop format: one episode point and one act point per step; a null role reward is skipped
    const real = points.filter((p) => p.arm === "real");
    expect(real.map((p) => `${p.step}:${p.role}`)).toEqual(["1:episode", "1:act", "2:episode", "2:act"]);
    expect(real.find((p) => p.step === 2 && p.role === "episode")?.reward).toBeCloseTo(0.4);
  });

  it("averages the per-seed logs of a multi-seed run", () => {
    const { dir } = makeDemoRunDir();
    seedLog(dir, "sft", 0, JSON.stringify({ step: 1, reward_mean: 0.2 }) + "\n");
    seedLog(dir, "sft", 1, JSON.stringify({ step: 1, reward_mean: 0.6 }) + "\n");
    const sft = readStepPoints(dir).filter((p) => p.arm === "sft");
    expect(sft).toHaveLength(1);
    expect(sft[0]!.reward).toBeCloseTo(0.4);
  });

  it("reads success curves, averages seeds per step, and charts success and the co-adaptation gap", async () => {
    const { dir } = makeDemoRunDir();
    const write = (rel: string, rows: object[]) => {
      mkdirSync(join(dir, "arms", ...rel.split("/").slice(0, -1)), { recursive: true });
      writeFileSync(join(dir, "arms", rel), rows.map((r) => JSON.stringify(r)).join("\n") + "\n{trunc");
    };
    write("envace/curve.jsonl", [
      { step: 0, real: 0.5, rehearsed: 0.5 },
      { step: 5, real: 0.6, rehearsed: 0.9 },
    ]);
    write("real/seed-0/curve.jsonl", [{ step: 0, real: 0.2 }]);
    write("real/seed-1/curve.jsonl", [{ step: 0, real: 0.4 }]);
    const curves = readCurves(dir);
    expect(curves.filter((c) => c.arm === "envace")).toEqual([
      { arm: "envace", step: 0, real: 0.5, rehearsed: 0.5 },
      { arm: "envace", step: 5, real: 0.6, rehearsed: 0.9 },
    ]);
    const real = curves.filter((c) => c.arm === "real");
    expect(real).toHaveLength(1);
    expect(real[0]!.real).toBeCloseTo(0.3);
    expect(real[0]!.rehearsed).toBeUndefined();
    const html = await buildReportHtml(dir);
    expect(html).toContain('id="success-per-step"');
    expect(html).toContain('id="co-adaptation-gap"');
  });

  it("charts each arm's and role's adv_net_share per step, averaged over seeds", async () => {
    const { dir } = makeDemoRunDir();
    const none = await buildReportHtml(dir);
    expect(none).not.toContain('id="advantage-net-share"'); // logs from before the field: no chart
    const step = (n: number, act: number, rehearse: number | null) => ({
      step: n,
      reward_mean: 0.5,
      role: { act: { reward_mean: 0.5, adv_net_share: act }, rehearse: { adv_net_share: rehearse } },
    });
    for (const [seed, act] of [
      [0, 0.6],
      [1, 0.8],
    ] as const) {
      const lines = [step(1, act, null), step(2, act / 2, null)].map((r) => JSON.stringify(r));
      seedLog(dir, "simulator", seed, lines.join("\n") + "\n{trunc");
    }
    const shares = readNetShares(dir).filter((p) => p.arm === "simulator");
    // a frozen role (null) gives no point; seeds are averaged per step and role
    expect(shares.map((p) => [p.role, p.step])).toEqual([
      ["act", 1],
      ["act", 2],
    ]);
    expect(shares[0]!.share).toBeCloseTo(0.7, 12);
    expect(shares[1]!.share).toBeCloseTo(0.35, 12);
    const html = await buildReportHtml(dir);
    expect(html).toContain('id="advantage-net-share"');
    expect(html).toContain("simulator · act");
  });

  it("lists the SFT gate per seed when there are several", () => {
    const { results } = makeDemoRunDir();
    const seed = (n: number, passed: boolean) => ({
      seed: n,
      first_call_copy: 0.97,
      write_call_copy: passed ? 0.8 : 0.5,
      fidelity: 0.9,
      fidelity_unseen: passed ? 0.7 : 0.4,
      passed,
      envless_success: 0.55,
      flawed_traces: 0.45,
    });
    const md = resultsMarkdown({
      ...results,
      sft_gate: {
        ...results.sft_gate,
        write_call_copy: 0.65,
        seeds_passed: 1,
        per_seed: [seed(0, true), seed(1, false)],
      },
    });
    expect(md).toContain("Passed on 1 of 2 seed(s)");
    expect(md).toContain("write-call copy 65.0%");
    expect(md).toContain("| 0 | 97.0 | 80.0 | 70.0 | 90.0 | 55.0 | 45.0 | – | passed |");
    expect(md).toContain("| 1 | 97.0 | 50.0 | 40.0 | 90.0 | 55.0 | 45.0 | – | NOT met |");
    // a results file from before recipe v11 has no write-call copy: a dash, not a made-up figure
    const { write_call_copy: _, ...older } = seed(2, true);
    const oldMd = resultsMarkdown({
      ...results,
      sft_gate: { ...results.sft_gate, seeds_passed: 2, per_seed: [older, older] },
    });
    expect(oldMd).toContain("| 2 | 97.0 | – | 70.0 |");
    expect(oldMd).not.toContain("write-call copy 0");
    expect(resultsMarkdown(results)).not.toContain("SFT gate per seed");
  });

  it("shows each seed's far-copy check and the SFT runs it took (recipe v14)", () => {
    const { results } = makeDemoRunDir();
    const seed = (n: number, copy_check: CopyCheck, sft_attempts: number) => ({
      seed: n,
      first_call_copy: 1,
      write_call_copy: 0.9,
      fidelity: 0.9,
      fidelity_unseen: 0.8,
      passed: true,
      copy_check,
      sft_attempts,
    });
    const good = seed(0, { write: 0.98, reply: 0.8, passed: true }, 1);
    const retried = seed(1, { write: 0.5, reply: 0.9, passed: false }, 3);
    const md = resultsMarkdown({
      ...results,
      sft_gate: { ...results.sft_gate, seeds_passed: 2, per_seed: [good, retried] },
    });
    expect(md).toContain("| 98 / 80 passed, 1 SFT run | passed |");
    expect(md).toContain("| 50 / 90 NOT met, 3 SFT runs | passed |");
    const one = resultsMarkdown({ ...results, sft_gate: { ...results.sft_gate, per_seed: [retried] } });
    expect(one).toContain("Far-copy check on held-back logs: 50 / 90 NOT met, 3 SFT runs.");
    // recipe v18: a reply rate under its level is reported (the level named, as the CLI names it),
    // the run kept; a results file from before the levels were recorded still reads
    const low = (reply_level?: number) =>
      resultsMarkdown({
        ...results,
        sft_gate: {
          ...results.sft_gate,
          per_seed: [seed(2, { write: 1, reply: 0.72, passed: true, reply_met: false, reply_level }, 1)],
        },
      });
    expect(low(0.75)).toContain(
      "Far-copy check on held-back logs: 100 / 72 passed (replies under 75%: reported, not retrained), 1 SFT run.",
    );
    expect(low()).toContain(
      "100 / 72 passed (replies under their level: reported, not retrained), 1 SFT run.",
    );
  });

  it("tables env-less success per seed when there are several, and not for one", () => {
    const { results } = makeDemoRunDir();
    const perSeed = (envless: (number | null)[]) => ({
      env_domain: [0.5, 0.5],
      envless,
      heldout_domain: [0, 0],
    });
    const arms = results.arms.map((a, i) => ({
      ...a,
      success_per_seed: perSeed([0.5 + i / 10, i === 1 ? null : 0.632]),
    }));
    const md = resultsMarkdown({ ...results, seed: 3, seeds: 2, arms });
    expect(md).toContain("| arm | seed 3 | seed 4 |");
    expect(md).toContain(`| ${arms[0]!.name} | 50.0 | 63.2 |`);
    expect(md).toContain(`| ${arms[1]!.name} | 60.0 | – |`); // a seed without tasks in the set
    expect(resultsMarkdown({ ...results, seed: 3, seeds: 1, arms })).not.toContain("success per seed");
  });

  it("renders the table with every arm", () => {
    const { results } = makeDemoRunDir();
    const md = resultsMarkdown(results);
    expect(md).toContain("| sft | 0 | 60.0 ± 5.0 | 50.0 ± 5.0 | 30.0 ± 5.0 | 90.0 | – |");
    expect(md).toContain("| envace | 0 | 70.0 ± 5.0 |");
    expect(md).not.toContain("RL steps"); // results of runs before --rl-steps say nothing of them
    expect(resultsMarkdown({ ...results, rl_steps: 60 })).toContain(
      "Every RL arm: 60 RL steps from the same SFT checkpoint.",
    );
  });

  it("tables why env-less tasks failed, per arm that reports it", () => {
    const { results } = makeDemoRunDir();
    const kinds = {
      wrong_arguments: 3,
      forbidden_call: 9,
      missing_call: 7,
      reply_fact: 2,
      judged: 0,
      not_finished: 1,
    };
    const md = resultsMarkdown({
      ...results,
      arms: results.arms.map((a) =>
        a.name === "sft" ? { ...a, envless_failures: { episodes: 40, ...kinds } } : a,
      ),
    });
    expect(md).toContain("| arm | tasks | failed | wrong arguments | forbidden call | missing call |");
    expect(md).toContain("| sft | 40 | 22 | 3 | 9 | 7 | 2 | 0 | 1 |");
    expect(md).not.toMatch(/\| envace \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \|/);
    expect(resultsMarkdown(results)).not.toContain("Why env-less tasks failed");
  });

  it("tables unseen-call fidelity by tool, with a dash for a tool an arm never called", () => {
    const { results } = makeDemoRunDir();
    const md = resultsMarkdown({
      ...results,
      arms: results.arms.map((a) =>
        a.name === "sft"
          ? {
              ...a,
              fidelity_unseen_by_tool: { move_event: { exact: 0.25, n: 4 }, get_event: { exact: 1, n: 9 } },
            }
          : a.name === "envace"
            ? { ...a, fidelity_unseen_by_tool: { get_event: { exact: 2 / 3, n: 6 } } }
            : a,
      ),
    });
    expect(md).toContain("| arm | get_event | move_event |");
    expect(md).toContain("| sft | 100 (9) | 25 (4) |");
    expect(md).toContain("| envace | 67 (6) | – |");
    expect(resultsMarkdown(results)).not.toContain("Fidelity on unseen calls by tool");
  });

  it("builds a self-contained page with SVG charts", async () => {
    const { dir } = makeDemoRunDir();
    const html = await buildReportHtml(dir);
    expect(html).not.toMatch(/<script/);
    for (const id of ["reward-per-arm", "reward-per-role", "success", "fidelity"]) {
      expect(html).toContain(`id="${id}"><svg`);
    }
    const path = await writeReport(dir);
    expect(readFileSync(path, "utf8")).toBe(html);
    expect(readFileSync(join(dir, "results.md"), "utf8")).toContain("| arm |");
  });

  it("names the field when results.json is invalid", async () => {
    const { dir } = makeDemoRunDir();
    writeFileSync(
      join(dir, "results.json"),
      JSON.stringify({ minutes: 1, report: "x", sft_gate: {}, arms: [], testtime: [] }),
    );
    await expect(buildReportHtml(dir)).rejects.toThrow(/sft_gate\.first_call_copy/);
  });
});
