import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DemoResults } from "../../src/report/index.js";

/** A small but complete run directory: results.json and two arms' metrics. */
export function makeDemoRunDir(): { dir: string; results: DemoResults } {
  const dir = mkdtempSync(join(tmpdir(), "envace-report-"));
  const ci = (mean: number) => ({ mean, ci95: 0.05, n: 40 });
  const results: DemoResults = {
    minutes: 3.5,
    report: join(dir, "report.html"),
    sft_gate: { first_call_copy: 0.97, fidelity: 0.91, passed: true },
    arms: [
      {
        name: "sft",
        train_env_calls: 0,
        success: { env_domain: ci(0.6), envless: ci(0.5), heldout_domain: ci(0.3) },
        reward_mean: 0.55,
        fidelity: { recorded: { exact: 0.9, f1: 0.95, n: 50 }, own_calls: { exact: 0.8, f1: 0.9, n: 60 } },
        rehearsed_world_success: null,
        steps: 0,
        minutes: 0,
      },
      {
        name: "envace",
        train_env_calls: 0,
        success: { env_domain: ci(0.7), envless: ci(0.65), heldout_domain: ci(0.35) },
        reward_mean: 0.7,
        fidelity: { recorded: { exact: 0.88, f1: 0.93, n: 50 }, own_calls: { exact: 0.82, f1: 0.9, n: 60 } },
        rehearsed_world_success: ci(0.8),
        steps: 3,
        minutes: 1.2,
      },
    ],
    testtime: [],
  };
  writeFileSync(join(dir, "results.json"), JSON.stringify(results));
  mkdirSync(join(dir, "arms", "envace"), { recursive: true });
  writeFileSync(
    join(dir, "arms", "envace", "metrics.jsonl"),
    [1, 2, 3]
      .map((s) => JSON.stringify({ step: s, reward_mean: { act: 0.5 + s / 10, rehearse: 0.4 + s / 10 } }))
      .join("\n") + '\n{"step": 4, "reward_m', // a line cut by a crash must not break the report
  );
  // The training loop's own line shape: episode reward plus per-role row rewards.
  mkdirSync(join(dir, "arms", "real"), { recursive: true });
  writeFileSync(
    join(dir, "arms", "real", "metrics.jsonl"),
    [1, 2]
      .map((s) =>
        JSON.stringify({
          step: s,
          reward_mean: 0.2 * s,
          role: { act: { reward_mean: 0.2 * s }, rehearse: { reward_mean: null } },
        }),
      )
      .join("\n") + "\n",
  );
  return { dir, results };
}
