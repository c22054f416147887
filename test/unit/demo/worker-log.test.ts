import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { workerLogTo } from "../../../src/demo/worker-log.js";

describe("workerLogTo", () => {
  it("makes its folder at the first line only, then appends each line", () => {
    const dir = join(mkdtempSync(join(tmpdir(), "envace-worker-log-")), "sft", "seed-0");
    const log = workerLogTo(join(dir, "worker.log"));
    expect(existsSync(dir)).toBe(false); // a cached SFT stage starts no worker: no empty folder
    log("listening on http://127.0.0.1:1234");
    log("worker died (exit 1); restart 1/3");
    expect(readFileSync(join(dir, "worker.log"), "utf8")).toBe(
      "listening on http://127.0.0.1:1234\nworker died (exit 1); restart 1/3\n",
    );
  });

  it("says once that it cannot write, and never throws into the worker's output stream", () => {
    const root = mkdtempSync(join(tmpdir(), "envace-worker-log-"));
    writeFileSync(join(root, "sft"), "a file where the folder should be\n");
    const warnings: string[] = [];
    const log = workerLogTo(join(root, "sft", "worker.log"), (m) => warnings.push(m));
    expect(() => log("listening on http://127.0.0.1:1234")).not.toThrow();
    expect(() => log("worker exited (code 0)")).not.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/cannot write the worker log .*sft\/worker\.log \(.*\); the run goes on/);
  });
});
