import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { outputDirProblem } from "../../../src/cli/output-dir.js";

describe("outputDirProblem", () => {
  const root = mkdtempSync(join(tmpdir(), "envace-outdir-"));
  const file = join(root, "a-file");
  writeFileSync(file, "x");
  mkdirSync(join(root, "folder"));

  it("accepts an existing folder and one that can be made under folders, and creates nothing", () => {
    expect(outputDirProblem("--out", join(root, "folder"))).toBeUndefined();
    expect(outputDirProblem("--out", join(root, "new", "deeper"))).toBeUndefined();
    expect(readdirSync(root).sort()).toEqual(["a-file", "folder"]);
  });

  it("names the option and what is in the way: the path itself, or a file above it", () => {
    expect(outputDirProblem("--out", file)).toBe(`--out ${file} is a file, not a folder`);
    expect(outputDirProblem("--cache", join(file, "x", "y"))).toBe(
      `--cache ${join(file, "x", "y")} cannot be made: ${file} is a file`,
    );
  });
});
