import { existsSync, mkdtempSync, readFileSync } from "node:fs";
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
});
