import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const REPO_ROOT = join(import.meta.dirname, "..", "..", "..");
const envace = (args: string[]) => run("npx", ["tsx", "src/cli/main.ts", ...args], { cwd: REPO_ROOT });

interface BfclJson {
  bench: string;
  tasks: number;
  accuracy: number;
  summary: Record<string, { accuracy: number; complete: boolean }>;
  overall: number;
  not_run: Record<string, string>;
  results: Array<{ id: string; valid: boolean; error_type?: string }>;
}

describe("envace eval --bench bfcl", () => {
  it("gold on the non-live collection: per-category accuracy, groups and overall in --json", async () => {
    const { stdout } = await envace(["eval", "--bench", "bfcl:non_live", "--policy", "gold", "--json"]);
    const s = JSON.parse(stdout) as BfclJson;
    expect(s.bench).toBe("bfcl:non_live");
    expect(s.tasks).toBe(1390);
    // Two Java entries no output can pass under upstream's checker (see ast-checker.test.ts).
    expect(s.results.filter((r) => !r.valid).map((r) => r.id)).toEqual(["simple_java_36", "simple_java_65"]);
    expect(s.summary.non_live!.accuracy).toBeCloseTo((1 + 0.98 + 1) / 3 / 4 + 3 / 4, 10);
    expect(s.summary.irrelevance).toMatchObject({ accuracy: 0.5, complete: false });
    expect(s.overall).toBeCloseTo(((s.summary.non_live!.accuracy + 0) * 10 + 0.5 * 10) / 100, 10);
    expect(Object.keys(s.not_run)).toEqual([]);
  }, 120_000);

  it("a replay file is scored line by line; the human report lists failures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-bfcl-"));
    const file = join(dir, "r.jsonl");
    writeFileSync(
      file,
      `{"id": "irrelevance_0", "calls": []}\n{"id": "irrelevance_1", "calls": [{"f": {"x": 1}}]}\n`,
    );
    const { stdout } = await envace(["eval", "--bench", "bfcl:irrelevance", "--policy", `replay:${file}`]);
    expect(stdout).toMatch(/bfcl:irrelevance: 2 candidates, accuracy 50\.00%/);
    expect(stdout).toContain("✗ irrelevance_1: irrelevance_error:decoder_success");
  }, 120_000);

  it("bad input exits 2 with a message", async () => {
    await expect(envace(["eval", "--bench", "bfcl:nonsense", "--policy", "gold"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown BFCL category "nonsense"/),
    });
    await expect(envace(["eval", "--bench", "bfcl:simple_python"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/an agent is needed/),
    });
  }, 120_000);
});
