import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  decodeFormatted,
  formatConfigs,
  formatStats,
  formatSystemPrompt,
  loadFormatSensitivity,
} from "../../../src/bench/bfcl/format-sensitivity.js";
import { loadCategory } from "../../../src/bench/bfcl/load.js";
import { withLanguageHints } from "../../../src/bench/bfcl/prompts.js";
import { runBfcl } from "../../../src/bench/bfcl/run-bfcl.js";
import { pyRepr } from "../../../src/envs/bfcl/py-value.js";
import { BFCL_DIR } from "./data.js";

// Recorded from upstream's default_decode_ast_prompting and formulate_system_prompt (commit 6ea5797).
const recorded = JSON.parse(
  readFileSync(new URL("./upstream-format-sensitivity.json", import.meta.url), "utf8"),
) as {
  decodes: Array<{ config: string; text: string; upstream: string }>;
  prompts_simple_python_19: Array<{ config: string; upstream: string }>;
};

describe("format sensitivity", () => {
  it("has upstream's 26 variations and 200 entries each, with upstream's ids", () => {
    expect(formatConfigs()).toHaveLength(26);
    const cases = loadFormatSensitivity(BFCL_DIR);
    expect(cases).toHaveLength(5200);
    expect(cases[0]!.entry.id).toBe(
      "format_sensitivity_0:ret_fmt=python&tool_call_tag=True&func_doc_fmt=python&prompt_fmt=plaintext&style=classic:simple_python_19",
    );
  });

  it("gold passes every variation; statistics are upstream's", async () => {
    const run = await runBfcl({
      bfclDir: BFCL_DIR,
      categories: ["format_sensitivity"],
      policy: { kind: "gold" },
    });
    expect(run.categories.format_sensitivity).toEqual({ accuracy: 1, total: 5200, ran: true });
    expect(run.format_sensitivity).toMatchObject({ accuracy_max_delta: 0, accuracy_std: 0 });
    // statistics.variance / stdev (sample) in percentage points, rounded to 2 decimals
    expect(
      formatStats({ a: { correct: 1, total: 2 }, b: { correct: 3, total: 4 }, c: { correct: 1, total: 1 } }),
    ).toEqual({
      accuracy_max_delta: 50,
      accuracy_variance: 625,
      accuracy_std: 25,
    });
  });

  for (const c of recorded.decodes) {
    it(`decodes ${c.config.split("&").slice(0, 2).join("&")} replies as upstream`, () => {
      const r = decodeFormatted(c.text, c.config);
      expect(Array.isArray(r) ? pyRepr(r) : null).toBe(c.upstream);
    });
  }

  it("writes upstream's system prompt for each doc format and style", () => {
    const { entries } = loadCategory(BFCL_DIR, "simple_python");
    const fn = withLanguageHints(entries.find((e) => e.id === "simple_python_19")!.function, "simple_python");
    for (const p of recorded.prompts_simple_python_19)
      expect(formatSystemPrompt(p.config, fn)).toBe(p.upstream);
  });

  it("refuses malformed XML and reads a missing tag as a decode failure", () => {
    const cfg = "ret_fmt=concise_xml&tool_call_tag=True&func_doc_fmt=xml&prompt_fmt=plaintext&style=classic";
    expect(decodeFormatted("<functions><function name='f'>", cfg)).toHaveProperty("decodeError");
    expect(decodeFormatted("<functions></functions>", cfg)).toHaveProperty("decodeError");
  });
});
