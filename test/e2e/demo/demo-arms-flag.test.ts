import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const demo = (args: string[]) =>
  run(process.execPath, ["--import", "tsx", "src/cli/main.ts", "demo", ...args], { timeout: 60_000 });

// `envace demo --arms`: a bad list is refused before anything runs (exit 2, nothing written).
describe("envace demo --arms", () => {
  it.each([
    [["--arms", "sft,bogus"], "unknown arm(s) bogus; choose from sft, real, simulator"],
    [["--arms", ","], "--arms names no arm; choose from sft, real"],
    [["--arms", " "], "--arms names no arm"],
    [["--sft-only", "--arms", "envace"], "--sft-only runs no RL arm; leave out --arms or --sft-only"],
  ])(
    "refuses %j",
    async (args, message) => {
      const dir = mkdtempSync(join(tmpdir(), "envace-demo-arms-"));
      const out = join(dir, "run");
      await expect(demo(["--quick", ...args, "--out", out, "--cache", join(dir, "c")])).rejects.toMatchObject(
        {
          code: 2,
          stderr: expect.stringContaining(message),
        },
      );
      expect(readdirSync(dir)).toEqual([]);
    },
    60_000,
  );
});
