import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { resolveDataDir } from "../../../src/bench/data-dir.js";

const REPO = resolve(import.meta.dirname, "..", "..", "..");
const saved = process.env.ENVACE_DATA_DIR;
afterEach(() => {
  if (saved === undefined) delete process.env.ENVACE_DATA_DIR;
  else process.env.ENVACE_DATA_DIR = saved;
});

describe("resolveDataDir", () => {
  it("prefers the option, then ENVACE_DATA_DIR", () => {
    process.env.ENVACE_DATA_DIR = "/tmp/from-env";
    expect(resolveDataDir("/tmp/from-option")).toBe("/tmp/from-option");
    expect(resolveDataDir()).toBe("/tmp/from-env");
  });

  it("falls back to ../shared/data next to the repository when it exists, else ./data", () => {
    delete process.env.ENVACE_DATA_DIR;
    const shared = join(REPO, "..", "shared", "data");
    expect(resolveDataDir()).toBe(existsSync(shared) ? shared : resolve("data"));
  });
});
