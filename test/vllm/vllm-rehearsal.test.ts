import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VllmAdmin } from "../../src/engines/vllm-admin.js";
import type { SyncRecord } from "../../src/engines/vllm-sync.js";
import type { EpisodeResult } from "../../src/rollout/types.js";
import { readJsonl, rehearsalBase, runTrain, vllmRehearsalConfig } from "./rehearsal-run.js";
import { servedChatCompletions, startVllm, vllmAvailable, type VllmServer } from "./vllm-server.js";

/**
 * The rehearsal example end to end on two real vLLM servers (CPU): the SFT warm-up of
 * `examples/rehearsal.yaml` gives the base both sides share, then `examples/vllm-lora.yaml` trains
 * two steps with its rollouts sampled on both servers, each hot-loading the LoRA version the worker
 * publishes before each step. Both servers start once for the file (minutes on 2 cores).
 * Reuse running servers with ENVACE_VLLM_URLS (two comma-separated `…/v1` roots) and their model
 * folder with ENVACE_VLLM_REHEARSAL_BASE.
 */
const TOL = 2e-3; // |log(trainer / vLLM probability)| per token, as in vllm-lora.test.ts
const RUN = "vllm-rehearsal";
const servers: VllmServer[] = [];
let dir: string;
let base: string;
let urls: string[];

beforeAll(async () => {
  if (!vllmAvailable() && !process.env.ENVACE_VLLM_URLS)
    throw new Error("vLLM is not installed: run `npm run setup:vllm` first");
  dir = mkdtempSync(join(tmpdir(), "envace-vllm-rehearsal-"));
  base = process.env.ENVACE_VLLM_REHEARSAL_BASE ?? (await rehearsalBase(dir));
  if (process.env.ENVACE_VLLM_URLS) urls = process.env.ENVACE_VLLM_URLS.split(",").map((u) => u.trim());
  else {
    // both at once: each start is mostly one core's work
    const started = await Promise.allSettled(
      [18111, 18112].map((port) =>
        startVllm({ model: base, servedName: "tiny", port, maxModelLen: 2048, log: () => undefined }),
      ),
    );
    for (const s of started) if (s.status === "fulfilled") servers.push(s.value);
    const failed = started.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    urls = servers.map((s) => s.baseURL);
  }
  expect(urls).toHaveLength(2);
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

describe("the rehearsal example on two vLLM servers", () => {
  it("samples both roles on both servers, each hot-loading every published version, and trains on their tokens", async () => {
    const out = join(dir, "run");
    const before = await Promise.all(urls.map((u) => servedChatCompletions(u)));
    const episodes: EpisodeResult[] = [];
    const config = vllmRehearsalConfig(base, urls, {
      steps: 2,
      tasks_per_step: 4, // 16 episodes a step: enough tool calls for rehearse rows
      eval_every: 0,
      checkpoint_every: 2,
      rollout: { ...vllmRehearsalConfig(base, urls).rollout!, run_name: RUN },
    });
    const metrics = await runTrain(config, out, { onEpisode: (_d, _t, e) => episodes.push(e) });
    expect(metrics.map((m) => m.step)).toEqual([1, 2]);

    // one sync per step (on-policy), both servers loaded each version
    const sync = readJsonl<SyncRecord>(join(out, "rollout-sync.jsonl"));
    expect(sync.map((r) => [r.step, r.off_policy_steps, r.ready, r.failed])).toEqual([
      [1, 0, 2, []],
      [2, 0, 2, []],
    ]);
    const versions = sync.map((r) => r.version);
    expect(versions[0]).toMatch(new RegExp(`^${RUN}@\\d+$`));
    expect(new Set(versions).size).toBe(2); // a new version after the first step's update
    for (const u of urls) {
      const served = await new VllmAdmin({ baseURL: u }).models();
      expect(served).toEqual(expect.arrayContaining(["tiny", ...versions]));
    }

    // both servers answered rollouts
    const after = await Promise.all(urls.map((u) => servedChatCompletions(u)));
    const perServer = after.map((n, i) => n - before[i]!);
    for (const n of perServer) expect(n).toBeGreaterThan(0);

    // rows of both roles, every one sampled by a published version with vLLM's own token ids
    const rows = episodes.flatMap((e) => e.rows);
    const total = (role: "act" | "rehearse") => metrics.reduce((a, m) => a + m.rows[role], 0);
    expect(total("act")).toBeGreaterThan(0);
    expect(total("rehearse")).toBeGreaterThan(0);
    expect(rows.filter((r) => r.role === "rehearse").length).toBe(total("rehearse"));
    for (const r of rows) {
      expect(versions).toContain(r.policyVersion);
      expect(r.promptTokenIds.length).toBeGreaterThan(0);
      expect(r.tokenIds.length).toBeGreaterThan(0);
      expect(r.logprobs).toHaveLength(r.tokenIds.length);
    }
    const callsByVersion = new Map<string, number>();
    for (const r of rows)
      callsByVersion.set(r.policyVersion!, (callsByVersion.get(r.policyVersion!) ?? 0) + 1);
    expect([...callsByVersion.keys()].sort()).toEqual([...versions].sort());

    // metrics.jsonl: the version and lag of each step, the sampler/trainer mismatch, and TIS
    for (const [i, m] of metrics.entries()) {
      expect(m.off_policy).toMatchObject({ version: versions[i], steps: 0 });
      expect(m.env_calls).toBe(0);
      // the trainer's logprobs of vLLM's tokens equal vLLM's: token in, token out
      for (const role of ["act", "rehearse"] as const) {
        const r = m.ratio[role];
        if (m.rows[role] === 0) continue;
        expect(r).not.toBeNull();
        expect(Math.abs(Math.log(r!.min))).toBeLessThan(TOL);
        expect(Math.abs(Math.log(r!.max))).toBeLessThan(TOL);
      }
      expect(m.tis).toBeDefined();
      expect(Math.abs(m.tis!.weight_mean - 1)).toBeLessThan(TOL);
      expect(m.tis!.capped_fraction).toBe(0);
    }
    // keeping vLLM in sync costs under 10% of a step (the bound)
    const share = metrics.map((m) => {
      const sync = m.off_policy!.publish_s + m.off_policy!.load_s;
      return sync / (m.time.sample + m.time.train);
    });
    for (const s of share) expect(s).toBeLessThan(0.1);
    console.log(
      JSON.stringify({
        rehearsal_on_vllm: {
          served_per_server: perServer,
          rows: { act: total("act"), rehearse: total("rehearse") },
          step_s: metrics.map((m) => m.time.sample + m.time.train),
          sync_share: share,
          ratio: metrics.map((m) => m.ratio),
          tis: metrics.map((m) => m.tis),
        },
      }),
    );
  });

  it("async: the next step's rollouts run on both servers while the trainer updates, one version behind", async () => {
    const out = join(dir, "run-async");
    const config = vllmRehearsalConfig(base, urls, {
      steps: 3,
      eval_every: 0,
      checkpoint_every: 3,
      rollout: {
        ...vllmRehearsalConfig(base, urls).rollout!,
        run_name: `${RUN}-async`,
        max_off_policy_steps: 1,
        async: true,
      },
    });
    const metrics = await runTrain(config, out);
    const sync = readJsonl<SyncRecord>(join(out, "rollout-sync.jsonl"));
    // published before steps 1 and 3 (after step 2's update); step 2 sampled ahead on step 1's version
    expect(sync.map((r) => [r.step, r.off_policy_steps, r.ready])).toEqual([
      [1, 0, 2],
      [2, 1, 0],
      [3, 0, 2],
    ]);
    expect(metrics.map((m) => [m.off_policy!.version, m.off_policy!.steps])).toEqual([
      [sync[0]!.version, 0],
      [sync[0]!.version, 1],
      [sync[2]!.version, 0],
    ]);
    expect(sync[2]!.version).not.toBe(sync[0]!.version);
    // on-policy steps (1 and 3) match token for token; step 2 is one update behind, so the
    // trainer's probabilities differ from vLLM's there and TIS weighs them, bounded by the cap
    for (const m of [metrics[0]!, metrics[2]!]) {
      for (const role of ["act", "rehearse"] as const) {
        const r = m.ratio[role];
        if (m.rows[role] === 0 || r === null) continue;
        expect(Math.abs(Math.log(r.min))).toBeLessThan(TOL);
        expect(Math.abs(Math.log(r.max))).toBeLessThan(TOL);
      }
    }
    for (const m of metrics) {
      expect(m.tis).toBeDefined();
      expect(Number.isFinite(m.tis!.weight_mean)).toBe(true);
      expect(m.tis!.weight_mean).toBeLessThanOrEqual(2);
    }
    console.log(
      JSON.stringify({
        rehearsal_on_vllm_async: {
          sample_s: metrics.map((m) => m.time.sample),
          train_s: metrics.map((m) => m.time.train),
          ratio: metrics.map((m) => m.ratio),
          tis: metrics.map((m) => m.tis),
        },
      }),
    );
  });
});
