import { astChecker, isFunctionCallingFormat, type AstCall, type CheckResult } from "./ast-checker.js";
import { languageOf } from "./categories.js";
import type { BfclAnswer, BfclEntry } from "./load.js";
import type { PyDict, PyValue } from "../../envs/bfcl/py-value.js";

/**
 * Scores one single-turn candidate as upstream's `eval_runner.py` does. A candidate is what the
 * decoder produced: decoded calls, or a `DecodeFailure` when the model's text did not parse.
 */
export interface DecodeFailure {
  decodeError: string;
}

export type Candidate = PyValue | DecodeFailure;

export function isDecodeFailure(c: Candidate): c is DecodeFailure {
  return c !== null && typeof c === "object" && "decodeError" in c && !Array.isArray(c);
}

export interface EntryVerdict {
  valid: boolean;
  error_type?: string;
  error?: unknown[];
}

/** Upstream `is_empty_output`: not call-shaped, `[]` or `[{}]` all mean "no call". */
function containsCall(c: Candidate): boolean {
  if (isDecodeFailure(c)) return false;
  if (!isFunctionCallingFormat(c)) return false;
  const calls = c as PyDict[];
  if (calls.length === 0) return false;
  return !(calls.length === 1 && Object.keys(calls[0]!).length === 0);
}

export function evaluateRelevance(category: string, candidate: Candidate): EntryVerdict {
  const called = containsCall(candidate);
  if (category.includes("irrelevance")) {
    return called
      ? {
          valid: false,
          error: ["Valid syntax. Successfully decode AST when it should not."],
          error_type: "irrelevance_error:decoder_success",
        }
      : { valid: true };
  }
  if (called) return { valid: true };
  const why = isDecodeFailure(candidate) ? candidate.decodeError : "";
  return {
    valid: false,
    error: [`Invalid syntax. Failed to decode AST when it should have. ${why}`],
    error_type: "relevance_error:decoder_failed",
  };
}

export interface AstEvalOptions {
  underscoreToDot?: boolean;
  /** The category string the checker dispatches on (format sensitivity passes the original id). */
  checkerCategory?: string;
}

export function evaluateAst(
  entry: BfclEntry,
  answer: BfclAnswer,
  candidate: Candidate,
  opts: AstEvalOptions = {},
): EntryVerdict {
  if (isDecodeFailure(candidate)) {
    return {
      valid: false,
      error: [`Invalid syntax. Failed to decode AST. ${candidate.decodeError}`],
      error_type: "ast_decoder:decoder_failed",
    };
  }
  if (!isFunctionCallingFormat(candidate)) {
    return {
      valid: false,
      error: [
        "Did not output in the specified format. Note: the model_result is wrapped in a string to ensure json serializability.",
      ],
      error_type: "ast_decoder:decoder_wrong_output_format",
    };
  }
  const category = opts.checkerCategory ?? entry.category;
  const r: CheckResult = astChecker(entry.function, candidate, answer as AstCall[], category, {
    language: languageOf(category),
    underscoreToDot: opts.underscoreToDot ?? false,
  });
  return r.valid ? { valid: true } : { valid: false, error: r.error, error_type: r.error_type };
}
