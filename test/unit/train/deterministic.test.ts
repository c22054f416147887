import { describe, expect, it } from "vitest";
import { parseTrainConfig } from "../../../src/train/config.js";
import {
  deterministicConfig,
  deterministicWarnings,
  resumeWarnings,
  withoutWallClock,
} from "../../../src/train/deterministic.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";

const base = {
  worker: { init: {}, args: ["--micro-batch-tokens", "4096"] },
  tasks: "tasks.jsonl",
  concurrency: 16,
};

describe("deterministic training config", () => {
  it("is off by default and then changes nothing", () => {
    const c = parseTrainConfig(base);
    expect(c.deterministic).toBe(false);
    expect(deterministicConfig(c)).toBe(c);
    expect(deterministicWarnings(c)).toEqual([]);
  });

  it("sends one request at a time and turns off the prefix cache of every worker it starts", () => {
    const c = parseTrainConfig({
      ...base,
      deterministic: true,
      mode: "simulator",
      simulator: { worker: { init: {} } },
    });
    const d = deterministicConfig(c);
    expect(d.concurrency).toBe(1);
    expect(d.worker!.args).toEqual(["--micro-batch-tokens", "4096", "--prefix-cache-mb", "0"]);
    expect(d.simulator && "worker" in d.simulator && d.simulator.worker.args).toEqual([
      "--prefix-cache-mb",
      "0",
    ]);
    // applied twice (the CLI, then trainFromConfig): the same config
    expect(deterministicConfig(d)).toEqual(d);
    expect(deterministicWarnings(d)).toEqual([]);
  });

  it("warns about the servers it does not start", () => {
    const c = parseTrainConfig({
      endpoint: "http://127.0.0.1:8000/v1",
      tasks: "tasks.jsonl",
      deterministic: true,
      judge: { base_url: "http://127.0.0.1:9000/v1", model: "judge" },
    });
    expect(deterministicConfig(c).concurrency).toBe(1);
    const [warning, ...rest] = deterministicWarnings(c);
    expect(rest).toEqual([]);
    expect(warning).toMatch(
      /policy endpoint http:\/\/127\.0\.0\.1:8000\/v1, the judge http:\/\/127\.0\.0\.1:9000\/v1/,
    );
  });

  it("compares metrics lines without their wall-clock fields, and only those", () => {
    const line = {
      step: 1,
      timestamp: "2026-11-30T21:00:00.000Z",
      time: { sample: 1.5, train: 0.5, judge: 0 },
      loss: 0.25,
      grad_norm: 0.5,
    } as unknown as StepMetrics;
    const later = { ...line, timestamp: "2026-11-30T22:00:00.000Z", time: { sample: 9, train: 9, judge: 1 } };
    expect(withoutWallClock(later)).toEqual(withoutWallClock(line));
    expect(withoutWallClock(line)).toEqual({ step: 1, loss: 0.25, grad_norm: 0.5 });
    expect(withoutWallClock({ ...line, loss: 0.26 })).not.toEqual(withoutWallClock(line));
  });

  it("a resume warns when the tiny model's KL reference would move to the checkpoint", () => {
    const kl = { fn: "ppo", clip_low: 0.2, clip_high: 0.2, kl_coef: 0.01 };
    expect(resumeWarnings(parseTrainConfig(base))).toEqual([]);
    expect(resumeWarnings(parseTrainConfig({ ...base, loss: kl }))[0]).toMatch(/KL reference/);
    const hf = { worker: { model: "/models/m" }, tasks: "tasks.jsonl", loss: kl };
    expect(resumeWarnings(parseTrainConfig(hf))).toEqual([]);
  });
});
