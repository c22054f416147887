import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { stepLine } from "../../../src/cli/train-progress.js";
import { runInfo, writeRunInfo } from "../../../src/train/run-info.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";

describe("run info", () => {
  it("records version, commit and start; a resumed run appends a line", () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-runinfo-"));
    const info = runInfo(["train", "--config", "x"]);
    expect(info.envace_version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.git_commit).toMatch(/^[0-9a-f]{40}$/); // the tests run in a checkout
    writeRunInfo(dir, { steps: 3 }, info);
    writeRunInfo(dir, { steps: 3 }, { ...info, argv: ["--resume"] });
    expect(JSON.parse(readFileSync(join(dir, "config.resolved.json"), "utf8"))).toEqual({ steps: 3 });
    const lines = readFileSync(join(dir, "runs.jsonl"), "utf8").trim().split("\n");
    expect(lines.map((l) => (JSON.parse(l) as { argv: string[] }).argv)).toEqual([
      ["train", "--config", "x"],
      ["--resume"],
    ]);
  });

  it("a step's plain progress line carries reward, rows and tokens per role, and time", () => {
    const m = {
      step: 2,
      reward_mean: 0.25,
      success_rate: 0,
      rows: { act: 8, rehearse: 4 },
      tokens: { act: 300, rehearse: 90 },
      env_calls: 0,
      loss: 0.5,
      time: { sample: 1.25, train: 2, judge: 0 },
    } as unknown as StepMetrics;
    expect(stepLine(m, 5)).toBe(
      "step 2/5 reward 0.250 success 0.00 rows act 8 rehearse 4 tokens act 300 rehearse 90 env_calls 0 loss 0.5000 time 3.3s",
    );
  });
});
