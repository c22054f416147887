/**
 * The deepest `[`/`{` nesting in a JSON text, counted in one linear pass that skips string
 * contents. Parsers call it before `JSON.parse` so that a hostile document nested thousands deep
 * becomes a typed error instead of a `RangeError` later (`JSON.stringify` and other recursive
 * walks overflow the stack on what `JSON.parse` accepted). Malformed text still gets a number;
 * `JSON.parse` is what rejects it.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Nesting deeper than this is refused by envace's JSON-reading parsers (Python's own limit is ~1000). */
export const MAX_JSON_DEPTH = 512;
