import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonNestingDepth } from "../../../src/core/json-depth.js";
import { parseAssistantText } from "../../../src/core/tool-call-text.js";
import { parseVerdict } from "../../../src/reward/parse-verdict.js";
import { parseExecutionResult } from "../../../src/rollout/execution-result.js";
import { growthRatio } from "./growth.js";

// Linear code grows ≈8× for 8× the input; the quadratic regexes these replace grew ≈64×.
const LINEAR_BOUND = 24;

/**
 * The reference's `_parse_sim_response` (EnvACE simulate_core / tool_simulator_agent.py) written
 * with its own regexes, plus our one documented relaxation (the block may open the text). Fine
 * for short inputs only: the lazy regexes backtrack.
 */
function referenceCode(text: string): string {
  const stripped = text.replace(/<think>[\s\S]*?<\/think>/g, "");
  if (
    stripped.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, "").replace(/^\ufeff+|\ufeff+$/g, "") === ""
  )
    return "EMPTY_SIMULATOR_OUTPUT";
  if (!stripped.includes("<execution_result>")) return "NO_EXECUTION_RESULT_TAG_FOUND";
  const m = /(?:^|\n)<execution_result>\n([\s\S]*?)\n<\/execution_result>/.exec(stripped);
  if (!m) return "EXECUTION_RESULT_TAG_MALFORMED";
  let value: unknown;
  try {
    value = JSON.parse(m[1]!.replace(/^[\s\x1c-\x1f\x85]+|[\s\x1c-\x1f\x85]+$/g, ""));
  } catch {
    return "SIMULATOR_JSON_DECODE_ERROR";
  }
  if (Array.isArray(value)) return "OK";
  if (typeof value === "object" && value !== null && Object.keys(value).length > 0) return "OK";
  return "INVALID_EXECUTION_RESULT_TYPE";
}

// Texts assembled from the pieces the parser looks for, so that random inputs hit every branch.
const fragment = fc.constantFrom(
  "<execution_result>",
  "</execution_result>",
  "<think>",
  "</think>",
  "\n",
  " ",
  "{",
  "}",
  "[",
  "]",
  '"a"',
  ":",
  "1",
  ",",
  "null",
  '{"k": 1}',
  "[1, 2]",
  "x",
);
const structuredText = fc.array(fragment, { maxLength: 24 }).map((parts) => parts.join(""));
const anyText = fc.oneof(
  structuredText,
  fc.string({ maxLength: 64 }),
  fc.string({ unit: "grapheme", maxLength: 32 }),
);

describe("parseExecutionResult: the reference's strictness", () => {
  it("accepts and rejects exactly what the reference's regex parser does (one relaxation)", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const r = parseExecutionResult(text);
        expect(r.ok ? "OK" : r.code).toBe(referenceCode(text));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    // an unterminated <think> stays, as with the reference's re.sub
    ["<think>draft\n<execution_result>\n[1]\n</execution_result>", "OK"],
    ["<think>only thoughts", "NO_EXECUTION_RESULT_TAG_FOUND"],
    // the opening tag needs a newline before it, unless it opens the text
    ['note<execution_result>\n{"a":1}\n</execution_result>', "EXECUTION_RESULT_TAG_MALFORMED"],
    ['<think>t</think>\n<execution_result>\n{"a":1}\n</execution_result>', "OK"],
    ["<execution_result>\n{}\n</execution_result>", "INVALID_EXECUTION_RESULT_TYPE"],
    // Python's strip() removes \x1c-\x1f around the JSON; JavaScript's trim() would not
    ['<execution_result>\n\x1c{"a":1}\x1f\n</execution_result>', "OK"],
  ])("%j → %s", (text, want) => {
    const r = parseExecutionResult(text);
    expect(r.ok ? "OK" : r.code).toBe(want);
    expect(referenceCode(text)).toBe(want);
  });

  it("deep nesting is a typed decode error, not a RangeError", () => {
    const deep = `<execution_result>\n${"[".repeat(5000)}${"]".repeat(5000)}\n</execution_result>`;
    const r = parseExecutionResult(deep);
    expect(r).toMatchObject({ ok: false, code: "SIMULATOR_JSON_DECODE_ERROR" });
    const fine = `<execution_result>\n${"[".repeat(100)}${"]".repeat(100)}\n</execution_result>`;
    expect(parseExecutionResult(fine).ok).toBe(true);
  });

  it("never throws and always answers a tool-error payload on failure", () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const r = parseExecutionResult(text);
        if (r.ok) expect(JSON.parse(r.content)).toEqual(r.value);
        else expect(JSON.parse(r.content).error_tool_call.code).toBe(r.code);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("parseVerdict", () => {
  it("reads {answer: boolean} bare, fenced or after thinking; anything else is a parse error", () => {
    expect(parseVerdict('{"answer": true}')).toEqual({ passed: true });
    expect(parseVerdict('```json\n{"answer": false}\n```')).toEqual({ passed: false });
    expect(parseVerdict('<think>hmm</think> ```{"answer": true}```')).toEqual({ passed: true });
    expect(parseVerdict('{"answer": "yes"}')).toEqual({ passed: false, parseError: true });
    expect(parseVerdict(`{"answer": true, "x": ${"[".repeat(5000)}${"]".repeat(5000)}}`)).toEqual({
      passed: false,
      parseError: true,
    });
  });

  it("agrees with the old fence regex wherever that regex is fast", () => {
    const old = (text: string) => {
      let body = text.trim();
      const fenced = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(body);
      if (fenced) body = fenced[1]!;
      try {
        const v = JSON.parse(body) as { answer?: unknown };
        if (typeof v === "object" && v !== null && typeof v.answer === "boolean") return { passed: v.answer };
      } catch {
        // falls through
      }
      return { passed: false, parseError: true };
    };
    const piece = fc.constantFrom(
      "```",
      "json",
      " ",
      "\n",
      '{"answer": true}',
      '{"answer": false}',
      "{",
      "}",
      "x",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (parts) => {
        const text = parts.join("");
        expect(parseVerdict(text)).toEqual(old(text));
      }),
      { numRuns: 3000 },
    );
  });
});

describe("parseAssistantText", () => {
  it("never throws; every call it returns has a name and object arguments, every error a code", () => {
    const piece = fc.constantFrom(
      "<tool_call>",
      "</tool_call>",
      "<think>",
      "</think>",
      '{"name": "f", "arguments": {"a": 1}}',
      '{"name": "", "arguments": []}',
      '{"name": "g", "arguments": "{\\"x\\": 2}"}',
      "{",
      "}",
      "\n",
      "text",
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(piece, { maxLength: 16 }).map((p) => p.join("")),
          fc.string(),
        ),
        (text) => {
          const r = parseAssistantText(text);
          for (const c of r.toolCalls) {
            expect(c.name.length).toBeGreaterThan(0);
            expect(
              typeof c.arguments === "object" && c.arguments !== null && !Array.isArray(c.arguments),
            ).toBe(true);
          }
          for (const e of r.errors) expect(e.code).toBe("INVALID_TOOL_CALL_FORMAT");
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("parsers stay linear on their worst-case inputs", () => {
  it("a judge reply that opens a fence and then whitespace (froze the loop before)", () => {
    const ratio = growthRatio(parseVerdict, (n) => "```" + " ".repeat(n) + "x", 20_000);
    expect(ratio).toBeLessThan(LINEAR_BOUND);
  });
  it("a rehearsal that repeats the opening tag without a closing one", () => {
    const ratio = growthRatio(parseExecutionResult, (n) => "\n<execution_result>\n".repeat(n), 4_000);
    expect(ratio).toBeLessThan(LINEAR_BOUND);
  });
  it("a rehearsal that repeats <think> without closing it", () => {
    const ratio = growthRatio(
      parseExecutionResult,
      (n) => "<think>".repeat(n) + "\n<execution_result>\n",
      4_000,
    );
    expect(ratio).toBeLessThan(LINEAR_BOUND);
  });
  it("an actor message that repeats <tool_call> and <think> openings", () => {
    const ratio = growthRatio(parseAssistantText, (n) => "<tool_call>{<think>".repeat(n), 4_000);
    expect(ratio).toBeLessThan(LINEAR_BOUND);
  });
  it("the JSON depth scan", () => {
    const ratio = growthRatio(jsonNestingDepth, (n) => '["\\"'.repeat(n), 20_000);
    expect(ratio).toBeLessThan(LINEAR_BOUND);
  });
});
