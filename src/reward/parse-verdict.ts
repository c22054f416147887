import { jsonNestingDepth, MAX_JSON_DEPTH } from "../core/json-depth.js";
import { stripThink } from "../core/tool-call-text.js";
import type { StandardVerdict } from "./types.js";

/** A judge reply longer than this is a parse error (a verdict is a few dozen characters). */
export const MAX_VERDICT_CHARS = 256 * 1024;

const FENCE = "```";

/**
 * Reads the verdict; anything but a JSON object with a boolean `answer` is a parse error. A reply
 * wrapped in a Markdown fence (```` ```json … ``` ````) is unwrapped first. Linear in the reply:
 * the judge's text is untrusted and this runs in the training loop's process, so no backtracking
 * regex reads it.
 */
export function parseVerdict(text: string): StandardVerdict {
  if (typeof text !== "string" || text.length > MAX_VERDICT_CHARS) return { passed: false, parseError: true };
  let body = stripThink(text).trim();
  if (body.length >= 2 * FENCE.length && body.startsWith(FENCE) && body.endsWith(FENCE)) {
    body = body.slice(FENCE.length, -FENCE.length);
    if (body.startsWith("json")) body = body.slice(4);
    body = body.trim();
  }
  if (jsonNestingDepth(body) > MAX_JSON_DEPTH) return { passed: false, parseError: true };
  try {
    const v = JSON.parse(body) as { answer?: unknown };
    if (typeof v === "object" && v !== null && typeof v.answer === "boolean") return { passed: v.answer };
  } catch {
    // falls through
  }
  return { passed: false, parseError: true };
}
