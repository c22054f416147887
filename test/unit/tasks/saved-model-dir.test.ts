import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { savedModelDir } from "../../../src/engines/saved-model-dir.js";

function model(dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "config.json"), "{}");
  return dir;
}

describe("savedModelDir (eval --checkpoint)", () => {
  const run = mkdtempSync(join(tmpdir(), "envace-ckpt-"));
  model(join(run, "checkpoints", "step-2", "model"));
  model(join(run, "checkpoints", "step-10", "model"));
  mkdirSync(join(run, "checkpoints", "step-11")); // being written: no model yet
  const split = model(join(run, "split", "step-3", "model-act"));

  it("a model directory as is, a step-K/ checkpoint, a run's latest checkpoint, the act model of split roles", () => {
    const m = join(run, "checkpoints", "step-2", "model");
    expect(savedModelDir(m)).toBe(m);
    expect(savedModelDir(join(run, "checkpoints", "step-2"))).toBe(m);
    expect(savedModelDir(run)).toBe(join(run, "checkpoints", "step-10", "model"));
    expect(savedModelDir(join(run, "split", "step-3"))).toBe(split);
  });

  it("a missing path or a directory without a model is one clear line", () => {
    expect(() => savedModelDir(join(run, "nope"))).toThrow(/^--checkpoint .*nope: no such directory$/);
    expect(() => savedModelDir(join(run, "checkpoints", "step-11"))).toThrow(/not a saved model/);
  });
});
