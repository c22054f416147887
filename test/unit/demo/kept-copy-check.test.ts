import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyCheckScore } from "../../../src/demo/copy-check.js";
import { keptCheck } from "../../../src/demo/sft-stage.js";

describe("keptCheck: the far-copy check kept beside a cached SFT checkpoint", () => {
  const dir = mkdtempSync(join(tmpdir(), "envace-kept-check-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, body: string) => {
    const f = join(dir, name);
    writeFileSync(f, body);
    return f;
  };
  const write = { right: 64, total: 64 };
  const reply = { right: 29, total: 40 };

  it("is scored again by today's rule: a v17 verdict that failed on replies alone is kept now", () => {
    // as v17 wrote it: both rates required, so 29/40 replies failed the check
    const v17 = { probes: "p1", score: { write, reply, score: -0.025, passed: false } };
    const kept = keptCheck(file("v17.json", JSON.stringify(v17)), "p1");
    expect(kept).toEqual(copyCheckScore(write, reply));
    expect(kept).toMatchObject({ passed: true, replyMet: false });
  });

  it("is not trusted for other probes, without tallies, or unreadable (the check is made again)", () => {
    const ok = JSON.stringify({ probes: "p1", score: { write, reply } });
    expect(keptCheck(file("ok.json", ok), "p2")).toBeUndefined();
    expect(keptCheck(file("bad.json", "{not json"), "p1")).toBeUndefined();
    expect(keptCheck(file("no-score.json", JSON.stringify({ probes: "p1" })), "p1")).toBeUndefined();
    const torn = JSON.stringify({ probes: "p1", score: { write, reply: { right: "29", total: 40 } } });
    expect(keptCheck(file("torn.json", torn), "p1")).toBeUndefined();
    expect(keptCheck(join(dir, "missing.json"), "p1")).toBeUndefined();
  });
});
