import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StepMetrics } from "../../../src/train/step-metrics.js";

/**
 * A train run directory as `envace train` writes it: metrics.jsonl (typed as the loop's
 * StepMetrics, so a renamed field breaks this fixture at typecheck), runs.jsonl and
 * config.resolved.json. Step k has act reward 0.1·k, rehearse reward 0.05·k, act length 10 + k,
 * rehearse length 20 + k, ratio 1 for act (none reported for rehearse on step 1) and advantage net
 * share 1 for act, 0.25 for rehearse.
 */
export function makeTrainRunDir(steps = 4): { dir: string; lines: StepMetrics[] } {
  const dir = mkdtempSync(join(tmpdir(), "envace-train-report-"));
  const role = (reward: number, len: number, std: number, net: number) => ({
    reward_mean: reward,
    adv_mean: 0,
    adv_std: std,
    adv_min: -std,
    adv_max: std,
    adv_net_share: net,
    trained_rows: 6,
    response_len_mean: len,
    response_len_max: len + 2,
  });
  const lines: StepMetrics[] = [];
  for (let k = 1; k <= steps; k++) {
    lines.push({
      step: k,
      timestamp: new Date(Date.UTC(2026, 10, 30, 12, 0, k)).toISOString(),
      lr: 1e-6,
      episodes: 8,
      env_calls: 0,
      masked: 0,
      rows: { act: 6 + k, rehearse: 4 + k },
      tokens: { act: 60, rehearse: 80 },
      reward_mean: 0.1 * k,
      success_rate: 0.1 * k,
      role: { act: role(0.1 * k, 10 + k, 0.4, 1), rehearse: role(0.05 * k, 20 + k, 0.3, 0.25) },
      zero_variance_groups: { act: 0, rehearse: 0 },
      rehearse_parse_error_rate: 0,
      rehearse_parse_errors: {},
      act_invalid_calls: 0,
      end_reasons: { done: 8 },
      forward_backward_calls: 1,
      loss: 0,
      ratio: {
        act: { mean: 1, min: 0.999, max: 1.001 },
        rehearse: k === 1 ? null : { mean: 1.0002, min: 0.999, max: 1.001 },
      },
      clip_frac: 0,
      grad_norm: 1,
      optim_skipped: false,
      restarts: 0,
      time: { sample: 1, train: 1, judge: 0 },
    });
  }
  writeFileSync(join(dir, "metrics.jsonl"), lines.map((l) => JSON.stringify(l) + "\n").join(""));
  writeFileSync(join(dir, "config.resolved.json"), JSON.stringify({ steps }) + "\n");
  writeFileSync(
    join(dir, "runs.jsonl"),
    JSON.stringify({
      envace_version: "9.9.9",
      git_commit: "abc123",
      git_dirty: false,
      started_at: "2026-11-30T12:00:00.000Z",
      argv: ["train"],
    }) + "\n",
  );
  return { dir, lines };
}
