import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isEnvaceError } from "../../../src/core/errors.js";
import { VllmRolloutConfigZ } from "../../../src/engines/vllm-config.js";
import type { PublishedWeights } from "../../../src/engines/vllm-engine.js";
import { VllmPolicySync, runNameOf, type SyncRecord } from "../../../src/engines/vllm-sync.js";
import "../../../src/envs/toolworld/register.js"; // the example uses `generator: toolworld`
import { loadTrainConfig, parseTrainConfig } from "../../../src/train/config.js";
import { startMockVllmServer, type MockVllmServer } from "../../../src/testing/mock-vllm-server.js";

const servers: MockVllmServer[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Stands in for the worker: each publish writes `<name>@<trainer step>` (an adapter dir). */
function fakeWorker(root: string) {
  const published: Array<{ name: string; dir?: string; keep?: number }> = [];
  return {
    trainerStep: 0,
    published,
    async publish(name: string, opts: { dir?: string; keep?: number }): Promise<PublishedWeights> {
      published.push({ name, ...opts });
      const version = `${name}@${this.trainerStep}`;
      const path = join(root, opts.dir ?? "published", version);
      mkdirSync(path, { recursive: true });
      writeFileSync(join(path, "adapter_config.json"), "{}");
      return { version, path, step: this.trainerStep, format: "lora" };
    },
  };
}

async function setup(extra: Record<string, unknown> = {}) {
  const out = mkdtempSync(join(tmpdir(), "envace-vsync-"));
  dirs.push(out);
  const a = await startMockVllmServer({ baseModel: "tiny" });
  servers.push(a);
  const cfg = VllmRolloutConfigZ.parse({
    engine: "vllm",
    endpoints: [{ base_url: a.baseURL }],
    base_model: "tiny",
    run_name: "exp",
    ...extra,
  });
  const worker = fakeWorker(out);
  const warnings: string[] = [];
  const sync = new VllmPolicySync(cfg, worker, { outDir: out, onWarning: (w) => warnings.push(w) });
  const log = () =>
    readFileSync(join(out, "rollout-sync.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as SyncRecord);
  return { out, a, worker, sync, log, warnings };
}

/** A loop step: rollouts (through the wrapped sampler), then one optimizer step. */
async function step(s: Awaited<ReturnType<typeof setup>>, n: number): Promise<string> {
  return (await stepResult(s, n)).text;
}

/** The wrapped sampler's whole result for step `n`: the sampled text and what it says of the lag. */
async function stepResult(s: Awaited<ReturnType<typeof setup>>, n: number) {
  const sampler = s.sync.wrap({
    sampleGroups: async () => {
      const res = await s.sync.policy.chat({
        messages: [
          { role: "system", content: "s" },
          { role: "user", content: `step ${n}` },
        ],
      });
      return { text: res.samples[0]!.text };
    },
  });
  const res = await sampler.sampleGroups([], { groupSize: 1, step: n });
  s.worker.trainerStep++;
  return res;
}

describe("VllmPolicySync", () => {
  it("on-policy (max_off_policy_steps 0): publishes and loads before every step", async () => {
    const s = await setup({ keep_published: 4, publish_dir: "pub" });
    const texts = [];
    for (let n = 1; n <= 3; n++) texts.push(await step(s, n));
    expect(texts.map((t) => t.split("|")[0])).toEqual(["exp@0", "exp@1", "exp@2"]);
    expect(s.worker.published).toEqual(Array(3).fill({ name: "exp", dir: "pub", keep: 4 }));
    const log = s.log();
    expect(log.map((r) => [r.step, r.version, r.off_policy_steps])).toEqual([
      [1, "exp@0", 0],
      [2, "exp@1", 0],
      [3, "exp@2", 0],
    ]);
    expect(log.every((r) => r.ready === 1 && r.load_s > 0 && r.publish_s >= 0)).toBe(true);
    expect(log[2]!.calls).toBe(2); // counted before the step's own rollouts
  });

  it("max_off_policy_steps k syncs every k+1 steps and logs the lag", async () => {
    const s = await setup({ max_off_policy_steps: 2 });
    const offPolicy = [];
    for (let n = 1; n <= 6; n++) offPolicy.push((await stepResult(s, n)).offPolicy);
    // what the loop writes to metrics.jsonl: the version, the lag, and the sync's cost (0 without one)
    expect(offPolicy.map((o) => [o.version, o.steps, o.load_s > 0, o.publish_s >= 0])).toEqual([
      ["exp@0", 0, true, true],
      ["exp@0", 1, false, true],
      ["exp@0", 2, false, true],
      ["exp@3", 0, true, true],
      ["exp@3", 1, false, true],
      ["exp@3", 2, false, true],
    ]);
    expect(s.log().map((r) => [r.version, r.off_policy_steps])).toEqual([
      ["exp@0", 0],
      ["exp@0", 1],
      ["exp@0", 2],
      ["exp@3", 0],
      ["exp@3", 1],
      ["exp@3", 2],
    ]);
    expect(s.worker.published).toHaveLength(2);
  });

  it("resyncs when the loop goes back to an earlier checkpoint (resume after a worker restart)", async () => {
    const s = await setup({ max_off_policy_steps: 1 });
    for (let n = 1; n <= 4; n++) await step(s, n); // syncs before steps 1 and 3
    s.worker.trainerStep = 1; // the worker reloaded the step-1 checkpoint; the loop redoes step 2
    expect((await step(s, 2)).split("|")[0]).toBe("exp@1");
    expect(s.log().map((r) => [r.step, r.version, r.off_policy_steps])).toEqual([
      [1, "exp@0", 0],
      [2, "exp@0", 1],
      [3, "exp@2", 0],
      [4, "exp@2", 1],
      [2, "exp@1", 0],
    ]);
    // a republished name would be replaced in place: every load asks for it
    const loads = s.a.calls.filter((c) => c.path === "/v1/load_lora_adapter");
    expect(loads.map((c) => [c.body.lora_name, c.body.load_inplace])).toEqual([
      ["exp@0", true],
      ["exp@2", true],
      ["exp@1", true],
    ]);
  });

  it("a server that cannot load the version is a warning; none at all is an ENDPOINT_ERROR", async () => {
    const s = await setup({ sync_retries: 0 });
    s.a.down = true;
    const err = await step(s, 1).catch((e: unknown) => e);
    expect(isEnvaceError(err, "ENDPOINT_ERROR")).toBe(true);
    expect(String((err as Error).message)).toContain("503");
  });
});

describe("VllmPolicySync, async rollouts (a step ahead, while the trainer updates)", () => {
  /**
   * A loop over `steps` steps whose sampler logs when each step's rollouts start and whose
   * "training" (20 ms, then the worker's step count moves) logs when it ends.
   */
  async function loop(
    s: Awaited<ReturnType<typeof setup>>,
    steps: number,
    tasksFor: (step: number) => string[] = (n) => [`task-${n}`],
  ) {
    const events: string[] = [];
    const inner = {
      sampleGroups: async (tasks: string[], o: { groupSize: number; step: number }) => {
        events.push(`sample ${o.step}`);
        const res = await s.sync.policy.chat({
          messages: [
            { role: "system", content: "s" },
            { role: "user", content: tasks.join(",") },
          ],
        });
        return { tasks, version: res.samples[0]!.text.split("|")[0]! };
      },
    };
    const sampler = s.sync.wrap(inner, {
      tasksFor: (n) => [`task-${n}`],
      key: (ts) => ts.join(","),
      lastStep: steps,
    });
    const results = [];
    for (let n = 1; n <= steps; n++) {
      results.push(await sampler.sampleGroups(tasksFor(n), { groupSize: 1, step: n }));
      await new Promise((r) => setTimeout(r, 20));
      s.worker.trainerStep++;
      events.push(`trained ${n}`);
    }
    return { events, results };
  }

  it("samples step k+1 while step k trains, on the loaded version, and never publishes meanwhile", async () => {
    const s = await setup({ max_off_policy_steps: 1, async: true });
    const { events, results } = await loop(s, 4);
    // steps 2 and 4 are within the bound of the version loaded before steps 1 and 3: sampled ahead;
    // step 3 needs the weights after step 2's update: sampled after it, as without async
    expect(events).toEqual([
      "sample 1",
      "sample 2",
      "trained 1",
      "trained 2",
      "sample 3",
      "sample 4",
      "trained 3",
      "trained 4",
    ]);
    expect(results.map((r) => [r.tasks[0], r.version, r.offPolicy.version, r.offPolicy.steps])).toEqual([
      ["task-1", "exp@0", "exp@0", 0],
      ["task-2", "exp@0", "exp@0", 1],
      ["task-3", "exp@2", "exp@2", 0],
      ["task-4", "exp@2", "exp@2", 1],
    ]);
    expect(s.worker.published).toHaveLength(2); // each publish followed a finished update
    expect(s.log().map((r) => r.step)).toEqual([1, 2, 3, 4]); // nothing sampled past the last step
  });

  it("with a wider bound, samples every step ahead until a sync is due", async () => {
    const s = await setup({ max_off_policy_steps: 2, async: true });
    const { events, results } = await loop(s, 4);
    expect(events.slice(0, 6)).toEqual([
      "sample 1",
      "sample 2",
      "trained 1",
      "sample 3",
      "trained 2",
      "trained 3",
    ]);
    expect(results.map((r) => [r.version, r.offPolicy.steps])).toEqual([
      ["exp@0", 0],
      ["exp@0", 1],
      ["exp@0", 2],
      ["exp@3", 0],
    ]);
  });

  it("drops what it sampled ahead when the loop asks for other tasks (and samples those)", async () => {
    const s = await setup({ max_off_policy_steps: 1, async: true });
    const { events, results } = await loop(s, 2, (n) => [`other-${n}`]);
    expect(results.map((r) => r.tasks[0])).toEqual(["other-1", "other-2"]);
    expect(events).toEqual(["sample 1", "sample 2", "trained 1", "sample 2", "trained 2"]);
  });

  it("off by default: each step samples after the previous update", async () => {
    const s = await setup({ max_off_policy_steps: 1 });
    const { events } = await loop(s, 2);
    expect(events).toEqual(["sample 1", "trained 1", "sample 2", "trained 2"]);
  });

  it("refuses async without a staleness bound of at least one step", () => {
    expect(() =>
      VllmRolloutConfigZ.parse({
        engine: "vllm",
        endpoints: [{ base_url: "http://127.0.0.1:8101/v1" }],
        base_model: "tiny",
        async: true,
      }),
    ).toThrow(/max_off_policy_steps to 1 or more/);
  });
});

describe("rollout config", () => {
  const base = { worker: { init: { size: "xs" } }, tasks: "t.jsonl" };
  it("accepts a vllm rollout block with defaults", () => {
    const c = parseTrainConfig({
      ...base,
      rollout: { engine: "vllm", endpoints: [{ base_url: "http://127.0.0.1:8101/v1" }], base_model: "tiny" },
    });
    expect(c.rollout).toMatchObject({
      publish_dir: "published",
      keep_published: 3,
      keep_loaded: 2,
      max_off_policy_steps: 0,
      sticky: true,
    });
  });

  it("names the field on bad input", () => {
    const bad = (rollout: unknown, extra = {}) => {
      try {
        parseTrainConfig({ ...base, ...extra, rollout });
        return "";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(bad({ engine: "vllm", endpoints: [], base_model: "m" })).toMatch(/rollout\.endpoints/);
    expect(bad({ engine: "sglang", endpoints: [{ base_url: "http://x/v1" }], base_model: "m" })).toMatch(
      /rollout\.engine/,
    );
    expect(
      bad({ engine: "vllm", endpoints: [{ base_url: "http://x/v1" }], base_model: "m", run_name: "a@b" }),
    ).toMatch(/rollout\.run_name/);
    expect(
      bad(
        { engine: "vllm", endpoints: [{ base_url: "http://x/v1" }], base_model: "m" },
        { shared_model: false },
      ),
    ).toMatch(/rollout: vLLM rollouts serve one policy/);
  });

  it("examples/vllm-lora.yaml is a valid LoRA config with two vLLM endpoints", () => {
    const dir = join(import.meta.dirname, "../../../examples");
    const c = loadTrainConfig(join(dir, "vllm-lora.yaml"));
    expect(c.rollout!.endpoints.map((e) => e.base_url)).toEqual([
      "http://127.0.0.1:8101/v1",
      "http://127.0.0.1:8102/v1",
    ]);
    expect(c.worker!.lora_rank).toBe(8);
    expect(c.worker!.model).toBe(join(dir, "../runs/rehearsal/base"));
    expect(c.shared_model).toBe(true);
  });

  it("examples/vllm-gpu.yaml is a valid GPU LoRA config with async rollouts within one step", () => {
    const dir = join(import.meta.dirname, "../../../examples");
    const c = loadTrainConfig(join(dir, "vllm-gpu.yaml"));
    expect(c.worker).toMatchObject({ device: "cuda", dtype: "bfloat16", lora_rank: 32 });
    expect(c.rollout).toMatchObject({ async: true, max_off_policy_steps: 1, base_model: "qwen3-4b" });
    expect(c.loss.tis_cap).toBe(2);
  });

  it("derives a run name the worker accepts from the output folder", () => {
    expect(runNameOf("/runs/my run (2)")).toBe("my-run--2-");
    expect(runNameOf("/runs/@@")).toBe("run");
    expect(runNameOf("/x/ok.v1")).toBe("ok.v1");
  });
});
