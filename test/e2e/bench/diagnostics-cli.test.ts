import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../../../src/engines/index.js";
import { generateTasks, toolworldCorpus } from "../../../src/envs/toolworld/index.js";
import type { RehearserAgreement } from "../../../src/demo/rehearser-agreement.js";
import { bench } from "./run-bench.js";

// A saved (untrained) tiny model: what a demo run's checkpoint directory holds, for the runners.
let model: string;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "envace-diag-"));
  const corpus = join(dir, "corpus.txt");
  writeFileSync(
    corpus,
    toolworldCorpus(generateTasks({ domain: "bank", seed: 1, count: 8, split: "train" })),
  );
  const worker = await startWorker({ init: { corpus, size: "xs", seed: 1 }, port: 0, checkpointRoot: dir });
  try {
    await worker.client.save("saved", { optimizer: false });
  } finally {
    await worker.stop();
  }
  model = [join(dir, "saved", "model"), join(dir, "saved")].find((d) => existsSync(join(d, "config.json")))!;
  expect(model).toBeDefined();
}, 300_000);

describe("bench:rehearser-misses", () => {
  it("classifies every miss of a saved model on a seed's unseen calls (--json)", async () => {
    const r = await bench("rehearser-misses.ts", ["--model", model, "--seed", "0", "--max", "6", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      probes: number;
      misses: number;
      by_kind: Record<string, number>;
      by_tool_hits: Record<string, { hits: number; n: number }>;
      tenant_sensitivity: number;
      world_dependent: number;
      rehearsal_prompt: string;
    };
    expect(out.rehearsal_prompt).toBe("compact-related"); // the demo's prompt (recipe v17)
    expect(out.probes).toBe(6);
    expect(Object.values(out.by_kind).reduce((a, b) => a + b, 0)).toBe(out.misses);
    const hits = Object.values(out.by_tool_hits).reduce((a, t) => a + t.hits, 0);
    expect(out.misses).toBe(6 - hits);
    // shares of the 6 calls; most of the demo's unseen calls differ between worlds
    expect(out.tenant_sensitivity * 6).toBeCloseTo(Math.round(out.tenant_sensitivity * 6), 9);
    expect(out.tenant_sensitivity).toBeLessThanOrEqual(1);
    expect(out.world_dependent).toBeGreaterThan(0.5);
  });

  it.each([
    [[], "--model DIR is required"],
    [["--model", "/nonexistent"], "no config.json"],
  ])("exits 2 with a message on bad input %j", async (args, message) => {
    const r = await bench("rehearser-misses.ts", args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
  });

  it("rehearses a v16 model with --rehearsal-prompt compact: the same probes", async () => {
    const r = await bench("rehearser-misses.ts", [
      ...["--model", model, "--seed", "0", "--max", "6", "--rehearsal-prompt", "compact", "--json"],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { probes: number; rehearsal_prompt: string };
    expect([out.rehearsal_prompt, out.probes]).toEqual(["compact", 6]);
  });

  it("refuses --max 0 and a prompt the demo does not train", async () => {
    const r = await bench("rehearser-misses.ts", ["--model", model, "--max", "0"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--max must be an integer ≥ 1");
    const prompt = await bench("rehearser-misses.ts", ["--model", model, "--rehearsal-prompt", "full"]);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain('got "full"');
  });
});

describe("bench:refusal-recall", () => {
  it("scores a saved model's refusals on a seed's forbidden and allowed writes (--json)", async () => {
    const r = await bench("refusal-recall.ts", ["--model", model, "--seed", "2", "--max", "8", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      forbidden: number;
      allowed: number;
      recall: number;
      false_refusals: number;
      by_tool: Record<string, { forbidden: number; allowed: number }>;
      rehearsal_prompt: string;
    };
    expect(out.forbidden + out.allowed).toBe(8);
    expect(out.forbidden).toBeGreaterThan(0);
    expect(out.allowed).toBeGreaterThan(0);
    for (const share of [out.recall, out.false_refusals]) {
      expect(share).toBeGreaterThanOrEqual(0);
      expect(share).toBeLessThanOrEqual(1);
    }
    const byTool = Object.values(out.by_tool);
    expect(byTool.reduce((a, c) => a + c.forbidden + c.allowed, 0)).toBe(8);
    expect(out.rehearsal_prompt).toBe("compact-related"); // the demo's prompt (recipe v17)
    // v16's prompt scores the same probes
    const v16 = await bench("refusal-recall.ts", [
      ...["--model", model, "--seed", "2", "--max", "8", "--rehearsal-prompt", "compact", "--json"],
    ]);
    expect(v16.code, v16.stderr).toBe(0);
    const old = JSON.parse(v16.stdout) as typeof out;
    expect([old.rehearsal_prompt, old.forbidden, old.allowed]).toEqual([
      "compact",
      out.forbidden,
      out.allowed,
    ]);
  });

  it("exits 2 without a model and on --max 0", async () => {
    const r = await bench("refusal-recall.ts", ["--seed", "2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--model DIR is required");
    const zero = await bench("refusal-recall.ts", ["--model", model, "--max", "0"]);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain("--max must be an integer ≥ 1");
    const prompt = await bench("refusal-recall.ts", ["--model", model, "--rehearsal-prompt", "full"]);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain(
      '--rehearsal-prompt must be compact or compact-related (the demo\'s prompts), got "full"',
    );
  });
});

describe("bench:testtime-headroom", () => {
  it("measures a saved model on two tasks, replaying its imagined refusals (--json)", async () => {
    const r = await bench("testtime-headroom.ts", [
      "--model",
      model,
      "--tasks",
      "2",
      "--attempts",
      "2",
      "--samples",
      "1",
      "--json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, number | string>;
    expect(out.tasks).toBe(2);
    expect(out.memory).toBe("consensus"); // the demo's test-time memory
    expect(out.guard).toBe(true); // and its commit guard over the domain's writes
    expect(out.rehearsal_prompt).toBe("compact-related"); // and its rehearsal prompt
    expect(out.imagined_errors_replayed).toBeGreaterThanOrEqual(0);
    expect(out.imagined_errors_confirmed).toBeGreaterThanOrEqual(0);
    expect(out.imagined_errors_confirmed).toBeLessThanOrEqual(1);
    expect(out.rehearsed_turns).toBeGreaterThan(0);
  });

  it("exits 2 without a model, and on an unknown --memory or --rehearsal-prompt", async () => {
    const r = await bench("testtime-headroom.ts", ["--tasks", "2"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--model DIR is required");
    const bad = await bench("testtime-headroom.ts", ["--model", model, "--memory", "notes"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--memory must be summary, digest or consensus");
    const prompt = await bench("testtime-headroom.ts", ["--model", model, "--rehearsal-prompt", "full"]);
    expect(prompt.code).toBe(2);
    expect(prompt.stderr).toContain("--rehearsal-prompt must be compact or compact-related");
  });
});

describe("bench:rehearser-agreement", () => {
  it("finds a model alike to itself on every call of a seed's unseen calls (--json)", async () => {
    const r = await bench("rehearser-agreement.ts", [
      ...["--model", model, "--against", model, "--seed", "0", "--max", "6", "--json"],
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as RehearserAgreement & {
      fidelity: { model: number; against: number };
      rehearsal_prompt: string;
    };
    expect(out.rehearsal_prompt).toBe("compact-related");
    // greedy decoding: the same weights give the same answer to every call
    expect([out.probes, out.same, out.onlyFirstRight, out.onlySecondRight, out.neitherRight]).toEqual([
      6, 6, 0, 0, 0,
    ]);
    expect(out.fidelity.model).toBe(out.fidelity.against);
    expect(out.sameRight).toBe(Math.round(out.fidelity.model * 6));
  });

  it("--calls training: the actor's calls on training tasks, split by whether the prompt shows the answer", async () => {
    const r = await bench("rehearser-agreement.ts", [
      ...["--model", model, "--against", model, "--seed", "0", "--calls", "training"],
      ...["--tasks", "3", "--samples", "2", "--evidence", "borrowed", "--json"],
    ]);
    expect(r.code, r.stderr).toBe(0);
    type Figures = RehearserAgreement & { fidelity: { model: number; against: number } };
    const out = JSON.parse(r.stdout) as Figures & {
      calls: string;
      actor: string;
      tasks: number;
      samples: number;
      evidence: string;
      answer_in_prompt: Figures;
      answer_not_in_prompt: Figures;
    };
    expect([out.calls, out.actor, out.tasks, out.samples, out.evidence]).toEqual([
      "training",
      model,
      3,
      2,
      "borrowed",
    ]);
    // An untrained model may make no valid call (then every count below is 0): this checks the
    // CLI's wiring; the probes (test/unit/demo/training-call-probes.test.ts) and the split's figures
    // (agreementWhere, test/unit/demo/rehearser-agreement.test.ts) are tested on known calls.
    // the two parts cover the calls, and the same weights answer every call alike in each
    expect(out.answer_in_prompt.probes + out.answer_not_in_prompt.probes).toBe(out.probes);
    for (const f of [out, out.answer_in_prompt, out.answer_not_in_prompt]) {
      expect(f.same).toBe(f.probes);
      expect(f.fidelity.model).toBe(f.fidelity.against);
    }
  });

  it("exits 2 on a --calls or --evidence it does not know, or an --actor that is not a saved model", async () => {
    const calls = await bench("rehearser-agreement.ts", [
      "--model",
      model,
      "--against",
      model,
      "--calls",
      "all",
    ]);
    expect(calls.code).toBe(2);
    expect(calls.stderr).toContain('--calls must be unseen or training, got "all"');
    const actor = await bench("rehearser-agreement.ts", [
      ...["--model", model, "--against", model, "--calls", "training", "--actor", "/nonexistent"],
    ]);
    expect(actor.code).toBe(2);
    expect(actor.stderr).toContain("--actor /nonexistent: no config.json");
    const evidence = await bench("rehearser-agreement.ts", [
      ...["--model", model, "--against", model, "--calls", "training", "--evidence", "none"],
    ]);
    expect(evidence.code).toBe(2);
    expect(evidence.stderr).toContain('--evidence must be own or borrowed, got "none"');
    const unseen = await bench("rehearser-agreement.ts", [
      ...["--model", model, "--against", model, "--evidence", "borrowed"],
    ]);
    expect(unseen.code).toBe(2);
    expect(unseen.stderr).toContain("--evidence applies to --calls training only");
  });

  it("exits 2 without --against, or with one that is not a saved model", async () => {
    const none = await bench("rehearser-agreement.ts", ["--model", model]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("--against DIR is required");
    const bad = await bench("rehearser-agreement.ts", ["--model", model, "--against", "/nonexistent"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--against /nonexistent: no config.json");
  });
});
