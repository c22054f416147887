import type { ErrorCode } from "../core/errors.js";
import { jsonNestingDepth, MAX_JSON_DEPTH } from "../core/json-depth.js";

/** The tool-error payload every answer path uses: `{"error_tool_call": {code, message, details?}}`. */
export function formatToolError(code: string, message: string, details?: unknown): string {
  const body: Record<string, unknown> = { code, message };
  if (details !== undefined) body.details = details;
  return JSON.stringify({ error_tool_call: body });
}

export type ExecutionResultParse =
  | {
      ok: true;
      /** The result as the actor sees it: the JSON re-serialised. */
      content: string;
      value: unknown;
      /** Set when the rehearser's result is itself an `error_tool_call` verdict. */
      verdict?: { code: string; message: string };
    }
  | { ok: false; code: ErrorCode; message: string; content: string };

const START = "<execution_result>";
const OPEN = "<execution_result>\n";
const OPEN_AFTER_NEWLINE = "\n<execution_result>\n";
const CLOSE = "\n</execution_result>";
/** A result block larger than this is refused (typed error) rather than parsed and re-serialised. */
export const MAX_EXECUTION_RESULT_CHARS = 1 << 20;

function fail(code: ErrorCode, message: string, details: Record<string, unknown>): ExecutionResultParse {
  return { ok: false, code, message, content: formatToolError(code, message, details) };
}

/**
 * The strict parser for a rehearsed (or simulated) tool response, the reference's
 * `_parse_sim_response`: complete `<think>…</think>` blocks are removed; then the text must hold
 * `\n<execution_result>\n{JSON}\n</execution_result>` whose JSON is a non-empty object or an
 * array. One difference, kept on purpose: the block may also open the text (no newline before
 * it), because our SFT targets are written that way. A failure yields the error code and a
 * tool-error `content` that the actor sees in place of the result.
 *
 * Every step is a linear scan (`indexOf`, one depth pass): no regex that backtracks, so that no
 * output of the model can stall the rollout process.
 */
export function parseExecutionResult(raw: string): ExecutionResultParse {
  const stripped = stripThinkBlocks(typeof raw === "string" ? raw : "");
  if (pyStrip(stripped) === "")
    return fail("EMPTY_SIMULATOR_OUTPUT", "Empty simulator output", {
      expected: "<execution_result>…</execution_result>",
    });
  const text = stripped;
  if (!text.includes(START)) {
    return fail("NO_EXECUTION_RESULT_TAG_FOUND", "No '<execution_result>' tag found in simulator output", {
      raw_preview: text.slice(0, 200),
    });
  }
  const block = extractBlock(text);
  if (block === undefined) {
    return fail(
      "EXECUTION_RESULT_TAG_MALFORMED",
      "'<execution_result>' found but the newline boundaries or the closing tag are missing",
      { raw_preview: text.slice(0, 200) },
    );
  }
  if (block.length > MAX_EXECUTION_RESULT_CHARS) {
    return fail("SIMULATOR_JSON_DECODE_ERROR", "Content inside <execution_result> is too large", {
      raw_preview: block.slice(0, 200),
      error: `${block.length} characters; the limit is ${MAX_EXECUTION_RESULT_CHARS}`,
    });
  }
  if (jsonNestingDepth(block) > MAX_JSON_DEPTH) {
    return fail("SIMULATOR_JSON_DECODE_ERROR", "Content inside <execution_result> is nested too deeply", {
      raw_preview: block.slice(0, 200),
      error: `nesting deeper than ${MAX_JSON_DEPTH} levels`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(block);
  } catch (e) {
    return fail("SIMULATOR_JSON_DECODE_ERROR", "Content inside <execution_result> is not valid JSON", {
      raw_preview: block.slice(0, 200),
      error: (e as Error).message,
    });
  }
  const isObject = typeof value === "object" && value !== null && !Array.isArray(value);
  if (!Array.isArray(value) && !(isObject && Object.keys(value as object).length > 0)) {
    return fail("INVALID_EXECUTION_RESULT_TYPE", "execution_result must be a non-empty object or an array", {
      got_type: value === null ? "null" : Array.isArray(value) ? "array" : typeof value,
    });
  }
  const content = JSON.stringify(value);
  if (isObject && "error_tool_call" in (value as object)) {
    const v = (value as { error_tool_call: unknown }).error_tool_call as {
      code?: unknown;
      message?: unknown;
    } | null;
    const code = typeof v?.code === "string" ? v.code : "UNKNOWN";
    const message = typeof v?.message === "string" ? v.message : "";
    return { ok: true, content, value, verdict: { code, message } };
  }
  return { ok: true, content, value };
}

/**
 * The JSON text of the first block, stripped as Python's `str.strip()` does, or undefined. This is
 * the leftmost match of the reference's lazy regex `\n<execution_result>\n(.*?)\n</execution_result>`
 * found without backtracking: the leftmost opening tag sees the most text after it, so if it has no
 * closing tag after it, no later one has either.
 */
function extractBlock(text: string): string | undefined {
  let contentStart: number;
  if (text.startsWith(OPEN)) contentStart = OPEN.length;
  else {
    const open = text.indexOf(OPEN_AFTER_NEWLINE);
    if (open < 0) return undefined;
    contentStart = open + OPEN_AFTER_NEWLINE.length;
  }
  const close = text.indexOf(CLOSE, contentStart);
  if (close < 0) return undefined;
  return pyStrip(text.slice(contentStart, close));
}

/**
 * Removes complete `<think>…</think>` blocks, as the reference's `re.sub(r"<think>.*?</think>")`
 * does (an unterminated `<think>` stays), in one pass.
 */
export function stripThinkBlocks(text: string): string {
  let out = "";
  let from = 0;
  for (;;) {
    const open = text.indexOf("<think>", from);
    if (open < 0) break;
    const close = text.indexOf("</think>", open + 7);
    if (close < 0) break;
    out += text.slice(from, open);
    from = close + 8;
  }
  return out + text.slice(from);
}

// Python's str.isspace() set, which `str.strip()` removes (JavaScript's trim differs in \x1c-\x1f,
// \x85 and \ufeff).
const PY_SPACE = new Set(
  [
    "\t\n\v\f\r\x1c\x1d\x1e\x1f \x85\xa0\u1680",
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a",
    "\u2028\u2029\u202f\u205f\u3000",
  ].join(""),
);

function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && PY_SPACE.has(s[a]!)) a++;
  while (b > a && PY_SPACE.has(s[b - 1]!)) b--;
  return s.slice(a, b);
}
