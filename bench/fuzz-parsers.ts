/**
 * Fuzzing of every parser that reads model or file text: ≥ 100k generated inputs each (fragments of
 * the syntax the parser looks for, random Unicode, and — one input in fifty — repetitions of those
 * fragments up to 50k characters, the shape of backtracking attacks). Prints `{parser: {inputs, crashes, slow}}`: a crash is any throw
 * other than the parser's documented typed error; slow is one input over 100 ms (the fastest of three
 * runs, so that a preempted run does not count). Exits 1 unless
 * every count of crashes and slow inputs is zero.
 *
 *   npm run fuzz -- [--runs 100000] [--seed 1] [--only yaml_config] [--json]
 */
import fc from "fast-check";
import { performance } from "node:perf_hooks";
import { isEnvaceError } from "../src/core/errors.js";
import { jsonNestingDepth } from "../src/core/json-depth.js";
import { parseYamlSafe } from "../src/core/safe-yaml.js";
import { parseAssistantText } from "../src/core/tool-call-text.js";
import { parseVerdict } from "../src/reward/parse-verdict.js";
import { parseExecutionResult } from "../src/rollout/execution-result.js";
import { decodeJavaJsPrompting } from "../src/bench/bfcl/model-handler.js";

const argv = process.argv.slice(2);
const flag = (name: string, dflt: number): number => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? Number(argv[i + 1]) : dflt;
};
const runs = flag("runs", 100_000);
const seed = flag("seed", 1);
const json = argv.includes("--json");
const only = argv.indexOf("--only") >= 0 ? argv[argv.indexOf("--only") + 1] : undefined;
const SLOW_MS = 100;

const FRAGMENTS = [
  "<execution_result>",
  "</execution_result>",
  "<think>",
  "</think>",
  "<tool_call>",
  "</tool_call>",
  "```",
  "```json",
  "json",
  "\n",
  " ",
  "\t",
  "{",
  "}",
  "[",
  "]",
  '"',
  "\\",
  ":",
  ",",
  "?",
  "? ",
  "- ",
  "&a ",
  "*a",
  "!!",
  "#",
  "'",
  '{"answer": true}',
  '{"name": "f", "arguments": {}}',
  '{"a": 1}',
  "null",
  "1e400",
  "x",
  // Java / JavaScript call replies (BFCL prompting mode)
  "Obj.f(",
  ")",
  "(",
  "a=",
  "=",
  ";",
  ".",
  "new ",
  "int[]",
  "<",
  ">",
  "->",
  "=>",
  "`",
  "${",
  "/",
  "//",
  "/*",
  "*/",
  "é",
];
const fragment = fc.constantFrom(...FRAGMENTS);
/** Texts of fragments, random strings, or one fragment pair repeated thousands of times. */
const MAX_CHARS = 50_000; // beyond any model reply (max_tokens) or config the parsers meet
const input = fc.oneof(
  { weight: 25, arbitrary: fc.array(fragment, { maxLength: 40 }).map((p) => p.join("")) },
  { weight: 15, arbitrary: fc.string({ unit: "grapheme", maxLength: 200 }) },
  { weight: 9, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(fragment, { minLength: 1, maxLength: 3 }), fc.integer({ min: 200, max: 5_000 }))
      .map(([parts, n]) => parts.join("").repeat(n).slice(0, MAX_CHARS)),
  },
);

type Parser = {
  name: string;
  run: (text: string) => unknown;
  /** The parser's documented typed failure (not a crash). */
  expected?: (e: unknown) => boolean;
  /** Longest input fed to it (default MAX_CHARS). */
  maxChars?: number;
};
const parsers: Parser[] = [
  { name: "execution_result", run: parseExecutionResult },
  { name: "judge_verdict", run: parseVerdict },
  { name: "tool_call_text", run: (t) => parseAssistantText(t) },
  { name: "json_depth", run: jsonNestingDepth },
  // BFCL prompting-mode replies: failures are returned as { decodeError }, never thrown
  { name: "bfcl_java_call", run: (t) => decodeJavaJsPrompting(t, "java") },
  { name: "bfcl_js_call", run: (t) => decodeJavaJsPrompting(t, "javascript") },
  // configs are a few kB: 10k characters is already several times the largest example config
  {
    name: "yaml_config",
    run: (t) => parseYamlSafe(t),
    expected: (e) => isEnvaceError(e, "INVALID_CONFIG"),
    maxChars: 10_000,
  },
];

function timed(p: Parser, text: string): number {
  const t0 = performance.now();
  try {
    p.run(text);
  } catch {
    // classified on the first run
  }
  return performance.now() - t0;
}

const report: Record<string, { inputs: number; crashes: number; slow: number; slowest_ms: number }> = {};
for (const p of parsers.filter((x) => only === undefined || x.name === only)) {
  const r = { inputs: 0, crashes: 0, slow: 0, slowest_ms: 0 };
  const examples: string[] = [];
  const slowOnes: string[] = [];
  fc.check(
    fc.property(input, (full) => {
      const text = full.slice(0, p.maxChars ?? MAX_CHARS);
      r.inputs++;
      const t0 = performance.now();
      try {
        p.run(text);
      } catch (e) {
        if (!p.expected?.(e)) {
          r.crashes++;
          if (examples.length < 3)
            examples.push(
              `${(e as Error).name}: ${(e as Error).message} on ${JSON.stringify(text.slice(0, 80))}`,
            );
        }
      }
      let ms = performance.now() - t0;
      // one slow timing may be the OS or the GC, not the parser: an input counts as slow only if
      // two more runs are slow too (the fastest of three is what is reported)
      for (let retry = 0; retry < 2 && ms > SLOW_MS; retry++) ms = Math.min(ms, timed(p, text));
      r.slowest_ms = Math.max(r.slowest_ms, Math.round(ms * 10) / 10);
      if (ms > SLOW_MS) {
        r.slow++;
        if (slowOnes.length < 3)
          slowOnes.push(`${Math.round(ms)} ms on ${text.length} chars: ${JSON.stringify(text.slice(0, 60))}`);
      }
      return true;
    }),
    { numRuns: runs, seed },
  );
  report[p.name] = r;
  if (!json) {
    process.stderr.write(`${p.name}: ${JSON.stringify(r)}\n`);
    for (const e of examples) process.stderr.write(`  crash: ${e}\n`);
    for (const e of slowOnes) process.stderr.write(`  slow: ${e}\n`);
  }
}
process.stdout.write(JSON.stringify(report, null, json ? 0 : 2) + "\n");
if (Object.values(report).some((r) => r.crashes > 0 || r.slow > 0)) process.exitCode = 1;
