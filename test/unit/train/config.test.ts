import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EnvaceError } from "../../../src/core/errors.js";
import { loadTrainConfig, parseLoopConfig, parseTrainConfig } from "../../../src/train/config.js";
import "../../../src/envs/toolworld/register.js"; // the examples use `generator: toolworld`

const minimal = { worker: { init: {} }, tasks: "tasks.jsonl" };

function configError(raw: unknown): EnvaceError {
  try {
    parseTrainConfig(raw);
  } catch (e) {
    if (e instanceof EnvaceError) return e;
    throw e;
  }
  throw new Error("expected an INVALID_CONFIG error");
}

describe("train config", () => {
  it("fills defaults that run", () => {
    const c = parseTrainConfig(minimal);
    expect(c).toMatchObject({
      mode: "rehearsal",
      group_size: 4,
      shared_model: true,
      roles: { act: "train", rehearse: "train" },
    });
    // the reference script's (run_checklist_share.sh) values: docs/reference-parity.md
    expect(c.loss).toEqual({ fn: "ppo", clip_low: 0.2, clip_high: 0.2, kl_coef: 0 });
    expect(c).toMatchObject({
      lr: 1e-6,
      weight_decay: 0.01,
      normalize_std: false,
      loss_agg_mode: "seq-mean-token-mean",
      invalid_call: "end",
      zero_variance_groups: "keep",
      rehearse_baseline: "role",
      temperature: 1,
      limits: { max_assistant_turns: 30, turn_limit_scope: "episode", max_tokens: 8000 },
    });
    expect(c.limits.max_parallel_calls).toBeUndefined();
    expect(c.worker).toEqual({ init: { size: "xs", seed: 0 } });
  });

  it.each([
    [{ ...minimal, group_size: 0 }, "group_size"],
    [{ ...minimal, mode: "dream" }, "mode"],
    [{ ...minimal, loss: { fn: "ppo", clip_low: -1 } }, "loss.clip_low"],
    [{ ...minimal, roles: { act: "train", rehearse: "sometimes" } }, "roles.rehearse"],
    [{ ...minimal, lr: "fast" }, "lr"],
    [{ ...minimal, rehearse_baseline: "task" }, "rehearse_baseline"],
    [{ ...minimal, typo_field: 1 }, "typo_field"],
    // no entropy term exists (the reference's entropy_coeff is 0): asking for one is an error
    [{ ...minimal, entropy_coeff: 0.01 }, "entropy_coeff"],
    [{ ...minimal, mode: "simulator" }, "simulator"],
    [{ tasks: "t.jsonl" }, "worker"],
    [{ ...minimal, endpoint: "http://127.0.0.1:1" }, "worker"],
    [{ ...minimal, roles: { act: "frozen", rehearse: "frozen" } }, "roles"],
    [{ worker: { init: {} } }, "tasks"],
    [{ ...minimal, worker: { model: "/m", parallel: "zero3" } }, "worker.parallel"],
    [{ ...minimal, worker: { model: "/m", init: {} } }, "worker"],
    [{ ...minimal, worker: { init: {}, lora_rank: 4 } }, "worker.lora_rank"],
    [{ ...minimal, worker: { model: "/m", nproc: 0 } }, "worker.nproc"],
  ])("rejects %j naming %s", (raw, field) => {
    const e = configError(raw);
    expect(e.code).toBe("INVALID_CONFIG");
    expect(e.message).toContain(`${field}:`);
  });

  it("takes how the worker runs: processes, parallelism, device, dtype, extra flags", () => {
    const worker = {
      model: "/models/qwen",
      lora_rank: 16,
      nproc: 8,
      parallel: "fsdp",
      device: "cuda",
      dtype: "bfloat16",
      args: ["--micro-batch-tokens", "16384"],
    };
    expect(parseTrainConfig({ ...minimal, worker }).worker).toEqual(worker);
  });

  it("loads YAML and resolves paths against the config's folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-cfg-"));
    const file = join(dir, "c.yaml");
    writeFileSync(
      file,
      "worker:\n  init: {size: xs}\ntasks: data/tasks.jsonl\neval_tasks: [a.jsonl, /abs/b.jsonl]\nsteps: 3\n",
    );
    const c = loadTrainConfig(file);
    expect(c.tasks).toBe(join(dir, "data/tasks.jsonl"));
    expect(c.eval_tasks).toEqual([join(dir, "a.jsonl"), "/abs/b.jsonl"]);
    expect(c.steps).toBe(3);
  });

  it("reports unparsable files as INVALID_CONFIG", () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-cfg-"));
    writeFileSync(join(dir, "bad.yaml"), "steps: [1, 2\n");
    expect(() => loadTrainConfig(join(dir, "bad.yaml"))).toThrow(/INVALID_CONFIG|not valid/);
    expect(() => loadTrainConfig(join(dir, "missing.yaml"))).toThrow(/cannot read/);
  });

  it.each(["rehearsal", "simulator", "real"])("examples/%s.yaml is a valid config of its mode", (mode) => {
    const c = loadTrainConfig(join(import.meta.dirname, "../../../examples", `${mode}.yaml`));
    expect(c.mode).toBe(mode);
    if (mode !== "rehearsal") expect(c.roles.rehearse).toBe("frozen");
  });

  it("examples/gpu-fsdp.yaml is a valid config that shards a local model over 8 processes", () => {
    const dir = join(import.meta.dirname, "../../../examples");
    const c = loadTrainConfig(join(dir, "gpu-fsdp.yaml"));
    expect(c.worker).toMatchObject({ model: join(dir, "../models/Qwen3-4B"), nproc: 8, parallel: "fsdp" });
  });
});

describe("loop config (the loop's settings without sources)", () => {
  it("fills the same defaults as a train config and needs no worker, endpoint or tasks", () => {
    const c = parseLoopConfig({ mode: "simulator", steps: 3 });
    const { worker: _w, tasks: _t, ...full } = parseTrainConfig({ ...minimal, steps: 3, mode: "rehearsal" });
    expect(c).toEqual({ ...full, mode: "simulator" });
  });

  it("refuses sources and keeps the loop's own checks", () => {
    expect(() => parseLoopConfig({ tasks: "t.jsonl" })).toThrow(/invalid loop config: tasks: unknown field/);
    expect(() => parseLoopConfig({ roles: { act: "frozen", rehearse: "frozen" } })).toThrow(
      /roles: at least one/,
    );
  });
});
