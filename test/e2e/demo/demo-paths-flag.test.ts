import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const demo = (args: string[]) =>
  run(process.execPath, ["--import", "tsx", "src/cli/main.ts", "demo", ...args], { timeout: 60_000 });

// `envace demo --out / --cache` that cannot be folders: refused before anything runs (exit 2, nothing
// written), not after the SFT stage's minutes when its checkpoint is saved.
describe("envace demo --out and --cache", () => {
  it.each([
    ["--out", "on a file", (f: string) => f, "is a file, not a folder"],
    ["--out", "under a file", (f: string) => join(f, "run"), "cannot be made"],
    ["--cache", "on a file", (f: string) => f, "is a file, not a folder"],
  ])(
    "refuses %s %s",
    async (option, _where, path, message) => {
      const dir = mkdtempSync(join(tmpdir(), "envace-demo-paths-"));
      const file = join(dir, "taken");
      writeFileSync(file, "not a folder");
      const where = { "--out": join(dir, "run"), "--cache": join(dir, "c"), [option]: path(file) };
      await expect(
        demo(["--quick", "--out", where["--out"], "--cache", where["--cache"]]),
      ).rejects.toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`envace demo: ${option} ${path(file)} ${message}`),
      });
      expect(readdirSync(dir)).toEqual(["taken"]);
    },
    60_000,
  );
});
