import type { ErrorCode } from "../core/errors.js";
import { stripThink } from "../core/tool-call-text.js";

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
const BLOCK_RE = /<execution_result>\n([\s\S]*?)\n<\/execution_result>/;

function fail(code: ErrorCode, message: string, details: Record<string, unknown>): ExecutionResultParse {
  return { ok: false, code, message, content: formatToolError(code, message, details) };
}

/**
 * The strict parser for a rehearsed (or simulated) tool response. `<think>…</think>` is stripped
 * first; then the text must hold `<execution_result>\n{JSON}\n</execution_result>` whose JSON is a
 * non-empty object or an array. A failure yields the error code and a tool-error `content` that
 * the actor sees in place of the result.
 */
export function parseExecutionResult(raw: string): ExecutionResultParse {
  const text = stripThink(raw ?? "");
  if (text.trim() === "")
    return fail("EMPTY_SIMULATOR_OUTPUT", "Empty simulator output", {
      expected: "<execution_result>…</execution_result>",
    });
  if (!text.includes(START)) {
    return fail("NO_EXECUTION_RESULT_TAG_FOUND", "No '<execution_result>' tag found in simulator output", {
      raw_preview: text.slice(0, 200),
    });
  }
  const m = BLOCK_RE.exec(text);
  if (!m) {
    return fail(
      "EXECUTION_RESULT_TAG_MALFORMED",
      "'<execution_result>' found but the newline boundaries or the closing tag are missing",
      {
        raw_preview: text.slice(0, 200),
      },
    );
  }
  const block = m[1]!.trim();
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
