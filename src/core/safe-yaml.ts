import { CST, Lexer, parse } from "yaml";
import { EnvaceError } from "./errors.js";

/** Limits on a YAML document read by envace (configs and task files are small and plain). */
export interface SafeYamlLimits {
  /** Characters (default 1 MiB). */
  maxChars?: number;
  /** Deepest `[`/`{` nesting (default 64). */
  maxFlowDepth?: number;
  /** Alias (`*name`) uses in the document (default 50: no "billion laughs" expansion). */
  maxAliases?: number;
}

/**
 * Parses YAML (or JSON) text with limits checked first, in one linear pass of the lexer, so that a
 * hostile or broken file fails fast with INVALID_CONFIG instead of hanging: the explicit-key
 * indicator `? ` is refused (nested complex keys made the parser take minutes on a few hundred
 * lines, and no envace file needs them), as is flow nesting deeper than `maxFlowDepth` and more
 * than `maxAliases` aliases. `what` (e.g. "config run.yaml") prefixes the error messages.
 */
export function parseYamlSafe(text: string, what?: string, limits: SafeYamlLimits = {}): unknown {
  const maxChars = limits.maxChars ?? 1 << 20;
  const maxFlowDepth = limits.maxFlowDepth ?? 64;
  const maxAliases = limits.maxAliases ?? 50;
  const refuse = (why: string): never => {
    throw new EnvaceError("INVALID_CONFIG", what === undefined ? why : `${what}: ${why}`);
  };
  if (text.length > maxChars) refuse(`${text.length} characters; the limit is ${maxChars}`);
  let depth = 0;
  let aliases = 0;
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === "explicit-key-ind") refuse("explicit `? ` mapping keys are not supported");
    else if (type === "flow-map-start" || type === "flow-seq-start") {
      if (++depth > maxFlowDepth) refuse(`[ ] / { } nested deeper than ${maxFlowDepth}`);
    } else if (type === "flow-map-end" || type === "flow-seq-end") depth = Math.max(0, depth - 1);
    else if (type === "alias" && ++aliases > maxAliases) refuse(`more than ${maxAliases} aliases`);
  }
  try {
    return parse(text, { maxAliasCount: maxAliases, uniqueKeys: true });
  } catch (e) {
    return refuse(what === undefined ? (e as Error).message : `not valid YAML/JSON: ${(e as Error).message}`);
  }
}
