import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { COPY_CHECK_MIN } from "../../../src/demo/copy-check.js";
import { GATE } from "../../../src/demo/run-seed.js";
import { DemoResultsZ, type DemoResults } from "../../../src/report/results.js";
import { launchChromium } from "../../helpers/chromium.js";

const run = promisify(execFile);

// The README's main job, as CI runs it: `envace demo --quick --json`, end to end on the tiny model.
describe("envace demo --quick --json", () => {
  const dir = mkdtempSync(join(tmpdir(), "envace-demo-"));
  const out = join(dir, "run");
  let results: DemoResults;
  let progress: string;

  beforeAll(async () => {
    const { stdout, stderr } = await run(
      process.execPath,
      [
        "--import",
        "tsx",
        "src/cli/main.ts",
        "demo",
        "--quick",
        "--json",
        "--out",
        out,
        "--cache",
        join(dir, "cache"),
      ],
      { maxBuffer: 64 << 20, timeout: 900_000 },
    );
    results = DemoResultsZ.parse(JSON.parse(stdout));
    progress = stderr;
    // the run's own limit, not the project's 600 s hook timeout: the quick demo takes ~490 s on a
    // 2-core machine, and one job beside it pushed it past 600 s
  }, 900_000);

  it("reports every arm with held-out results on all three evaluation sets", () => {
    expect(results.arms.map((a) => a.name)).toEqual([
      "sft",
      "real",
      "simulator",
      "envace",
      "envace_anchored",
      "real_all",
    ]);
    for (const arm of results.arms) {
      for (const split of ["env_domain", "envless", "heldout_domain"] as const) {
        expect(arm.success[split].n).toBeGreaterThan(0);
        expect(arm.success[split].mean).not.toBeNull();
      }
      expect(arm.fidelity!.recorded.n).toBeGreaterThan(0);
      expect(arm.fidelity_unseen!.n).toBeGreaterThan(0);
      for (const split of ["env_domain", "envless", "heldout_domain"] as const) {
        const ci = arm.success_ci![split];
        const m = arm.success[split];
        if (ci) expect(ci[0]).toBeCloseTo(Math.max(0, m.mean! - m.ci95!), 9);
      }
      // Where transfer fails: nested shares (a right first call names one of the domain's tools).
      const f = arm.heldout_first_call!;
      expect(f.domain_tool).toBeGreaterThanOrEqual(f.right_tool);
      expect(f.right_tool).toBeGreaterThanOrEqual(f.exact);
      expect(f.domain_tool).toBeLessThanOrEqual(1);
      // Why env-less tasks failed: one kind per failed task, so the kinds add up to the failures.
      const { episodes, ...kinds } = arm.envless_failures!;
      const failed = Object.values(kinds).reduce((a, b) => a + b, 0);
      expect(episodes).toBe(arm.success.envless.n);
      expect(failed).toBe(Math.round(episodes * (1 - arm.success.envless.mean!)));
    }
    // the gate is the SFT model's own measurement, and its verdict follows the thresholds
    const sft = results.arms.find((a) => a.name === "sft")!;
    const gate = results.sft_gate;
    expect(gate.fidelity).toBe(sft.fidelity!.recorded.exact);
    expect(gate.fidelity_unseen).toBe(sft.fidelity_unseen!.exact);
    expect(gate.write_call_copy).toBeGreaterThanOrEqual(0);
    expect(gate.write_call_copy).toBeLessThanOrEqual(1);
    const passed =
      gate.first_call_copy >= GATE.firstCallCopy &&
      gate.write_call_copy! >= GATE.writeCallCopy &&
      gate.fidelity_unseen! >= GATE.fidelityUnseen;
    expect(gate.per_seed!.map((s) => s.passed)).toEqual([passed]);
    expect(gate.seeds_passed).toBe(passed ? 1 : 0);
    expect(gate.passed).toBe(passed);
    expect(gate.per_seed![0]!.flawed_traces).toBeGreaterThan(0.3);
    // the far-copy check of the kept SFT run, on held-back logs (the quick plan makes one run)
    const check = gate.per_seed![0]!.copy_check!;
    for (const rate of [check.write, check.reply]) expect(rate >= 0 && rate <= 1).toBe(true);
    // recipe v18: the write rate decides; the reply rate's level is reported beside it
    expect(check.passed).toBe(check.write >= COPY_CHECK_MIN.write);
    expect(check.reply_met).toBe(check.reply >= COPY_CHECK_MIN.reply);
    expect([check.write_level, check.reply_level]).toEqual([COPY_CHECK_MIN.write, COPY_CHECK_MIN.reply]);
    expect(gate.per_seed![0]!.sft_attempts).toBe(1);
    // …and its progress line (plain lines, as stderr is not a terminal here)
    const { write, reply } = results.sft_gate.per_seed![0]!.copy_check!;
    const line =
      /\[seed 0\] SFT run 1: far-copy check on held-back logs write (\d+)\/(\d+), reply (\d+)\/(\d+) — (passed|NOT met)/.exec(
        progress,
      );
    expect(line, progress.slice(0, 2000)).not.toBeNull();
    const [, wr, wt, rr, rt, verdict] = line!;
    expect(Number(wt) > 0 ? Number(wr) / Number(wt) : 1).toBeCloseTo(write, 9);
    expect(Number(rt) > 0 ? Number(rr) / Number(rt) : 1).toBeCloseTo(reply, 9);
    expect(verdict === "passed").toBe(check.passed);
    expect(progress.includes("reply copy under")).toBe(!check.reply_met);
    expect(results.notes!.some((n) => n.includes("SFT gate NOT met"))).toBe(!gate.passed);
  });

  it("trains the rehearsal and simulator arms with zero real environment calls, step by step", () => {
    for (const name of ["simulator", "envace", "envace_anchored"]) {
      expect(results.arms.find((a) => a.name === name)!.train_env_calls).toBe(0);
      const lines = readFileSync(join(out, "arms", name, "metrics.jsonl"), "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.step)).toEqual(Array.from({ length: QUICK_PLAN.rl.steps }, (_, i) => i + 1));
      expect(lines.every((l) => l.env_calls === 0)).toBe(true);
    }
    // the real-environment arms logged their steps too (their env calls are whatever the policy made)
    for (const name of ["real", "real_all"]) {
      expect(
        readFileSync(join(out, "arms", name, "metrics.jsonl"), "utf8")
          .trim()
          .split("\n"),
      ).toHaveLength(QUICK_PLAN.rl.steps);
    }
    // each arm's worker left its output in the run directory (the simulator arm's frozen one too)
    for (const name of ["sft", "real", "envace"])
      expect(readFileSync(join(out, "arms", name, "worker.log"), "utf8")).toMatch(
        /listening on http:\/\/127\.0\.0\.1:\d+/,
      );
    expect(readFileSync(join(out, "arms", "simulator", "simulator-worker.log"), "utf8")).toMatch(
      /listening on/,
    );
    // and so did the SFT stage's (the cache was empty: this run trained its checkpoint)
    expect(readFileSync(join(out, "sft", "worker.log"), "utf8")).toMatch(/listening on/);
  });

  it("adds test-time rows that never touched the real environment while rehearsing", () => {
    expect(results.testtime.map((r) => `${r.policy}:${r.mode}`)).toEqual([
      "sft:none",
      "sft:parallel",
      "sft:sequential",
      "envace:none",
      "envace:parallel",
      "envace:sequential",
    ]);
    for (const r of results.testtime) expect(r.real_calls_during_rehearsal).toBe(0);
    // the plan's memory: the consensus plan of the attempts
    for (const r of results.testtime) expect(r.memory).toBe(r.mode === "none" ? undefined : "consensus");
    // the committed run guards the domain's writes, and the rows count what it held back
    for (const r of results.testtime) {
      expect(r.guard).toBe(r.mode === "none" ? undefined : true);
      if (r.mode !== "none") expect(r.held_calls).toBeGreaterThanOrEqual(0);
    }
    expect(results.testtime.find((r) => r.mode === "parallel")!.rehearsal_tokens_per_task).toBeGreaterThan(0);
  });

  it("writes results.md and a report.html that renders its charts in Chromium", async () => {
    const md = readFileSync(join(out, "results.md"), "utf8");
    expect(md).toContain("| envace_anchored |");
    expect(md).toMatch(/Held-out domain, first act call .*sft \d+\.\d% name one of its tools/);
    expect(md).toMatch(/\| sft \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| \d+ \| 0 \| \d+ \|/);
    expect(results.report).toBe(join(out, "report.html"));
    expect(existsSync(results.report)).toBe(true);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(pathToFileURL(results.report).href);
      const ids = await page.$$eval("figure.chart svg", (svgs) => svgs.map((s) => s.closest("figure")!.id));
      expect(ids).toEqual(expect.arrayContaining(["reward-per-arm", "success", "fidelity"]));
      expect(await page.$$eval("table tbody tr", (rows) => rows.length)).toBeGreaterThanOrEqual(6);
    } finally {
      await browser.close();
    }
  });
});
