import { CST, Lexer, Parser, parse } from "yaml";
import { EnvaceError } from "./errors.js";

/** Limits on a YAML document read by envace (configs and task files are small and plain). */
export interface SafeYamlLimits {
  /** Characters (default 64 KiB; envace's example configs are about 1 kB, and the YAML composer is
   * superlinear in the number of mapping entries). */
  maxChars?: number;
  /** Deepest `[`/`{` nesting (default 64). */
  maxFlowDepth?: number;
  /** Alias (`*name`) uses in the document (default 50: no "billion laughs" expansion). */
  maxAliases?: number;
  /** `key: value` pairs in the whole document (default 2000; the duplicate-key check is quadratic). */
  maxEntries?: number;
}

/**
 * Parses YAML (or JSON) text with limits checked first, so that a hostile or broken file fails fast
 * with INVALID_CONFIG instead of hanging. One linear lexer pass refuses: the explicit-key indicator
 * `? ` (nested complex keys took the parser minutes on a few hundred lines; no envace file needs
 * them), collections as keys, tags, flow nesting deeper than `maxFlowDepth`, more than
 * `maxAliases` aliases or `maxEntries` pairs. Syntax errors are then found by the CST parser before
 * anything is composed. `what` (e.g. "config run.yaml") prefixes the error messages.
 */
export function parseYamlSafe(text: string, what?: string, limits: SafeYamlLimits = {}): unknown {
  const maxChars = limits.maxChars ?? 64 * 1024;
  const maxFlowDepth = limits.maxFlowDepth ?? 64;
  const maxAliases = limits.maxAliases ?? 50;
  const maxEntries = limits.maxEntries ?? 2000;
  const refuse = (why: string): never => {
    throw new EnvaceError("INVALID_CONFIG", what === undefined ? why : `${what}: ${why}`);
  };
  if (text.length > maxChars) refuse(`${text.length} characters; the limit is ${maxChars}`);
  let depth = 0;
  let aliases = 0;
  let entries = 0;
  let afterFlowEnd = false; // a `:` right after `]`/`}` makes that collection a mapping key
  for (const token of new Lexer().lex(text)) {
    const type = CST.tokenType(token);
    if (type === "space") continue;
    if (afterFlowEnd && type === "map-value-ind")
      refuse("[ ] / { } collections as mapping keys are not supported");
    afterFlowEnd = type === "flow-map-end" || type === "flow-seq-end";
    if (type === "explicit-key-ind") refuse("explicit `? ` mapping keys are not supported");
    else if (type === "tag") refuse("YAML tags (`!!type`, `!name`) are not supported");
    else if (type === "flow-map-start" || type === "flow-seq-start") {
      if (++depth > maxFlowDepth) refuse(`[ ] / { } nested deeper than ${maxFlowDepth}`);
    } else if (type === "flow-map-end" || type === "flow-seq-end") depth = Math.max(0, depth - 1);
    else if (type === "alias" && ++aliases > maxAliases) refuse(`more than ${maxAliases} aliases`);
    else if (type === "map-value-ind" && ++entries > maxEntries)
      refuse(`more than ${maxEntries} key: value pairs`);
  }
  // The syntax is checked by the (linear) CST parser first: composing a document with thousands of
  // syntax errors took time quadratic in them (60 kB of repeated `{...}` on one line: 13 s).
  for (const node of new Parser().parse(text)) {
    if (node.type === "error") {
      const line = text.slice(0, node.offset).split("\n").length;
      refuse(`not valid YAML/JSON at line ${line}: ${node.message}`);
    }
  }
  // The composer builds an Error per problem it meets (hundreds on a garbled line); capturing their
  // stack traces was most of its time, and nobody reads them: off while it runs (synchronously).
  const stackLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  let value: unknown;
  try {
    value = parse(text, {
      maxAliasCount: maxAliases,
      uniqueKeys: true,
      prettyErrors: false,
      logLevel: "error",
    });
  } catch (e) {
    Error.stackTraceLimit = stackLimit;
    return refuse(what === undefined ? (e as Error).message : `not valid YAML/JSON: ${(e as Error).message}`);
  } finally {
    Error.stackTraceLimit = stackLimit;
  }
  return value;
}
