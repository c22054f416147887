import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readLogObjects } from "../../../src/report/log-lines.js";

describe("readLogObjects", () => {
  it("keeps each line's object and skips blank, cut and non-object lines", () => {
    const file = join(mkdtempSync(join(tmpdir(), "envace-log-")), "metrics.jsonl");
    writeFileSync(file, '{"step":1}\n\n[1,2]\nnull\n7\n{"step":2,"x":{"y":1}}\n{"step": 3, "rew');
    expect(readLogObjects(file)).toEqual([{ step: 1 }, { step: 2, x: { y: 1 } }]);
  });
});
