import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { parsePythonLiteral } from "./python-call-parser.js";
import type { PyValue } from "./py-value.js";

/**
 * The long-context padding upstream injects into backend outputs (`long_context.py`: file
 * contents, hundreds of file names, booking records, …). Upstream keeps it as Python constants;
 * `envace data fetch bfcl` fetches that file as `bfcl/long_context.py` and we read each
 * `NAME = <literal>` with the literal parser — nothing in it is executed.
 */
export type LongContextData = Record<string, PyValue>;

export const LONG_CONTEXT_FILE = "long_context.py";

export function loadLongContext(bfclDir: string): LongContextData | undefined {
  const path = join(bfclDir, LONG_CONTEXT_FILE);
  if (!existsSync(path)) return undefined;
  return parseLongContext(readFileSync(path, "utf8"), path);
}

export function parseLongContext(source: string, where = LONG_CONTEXT_FILE): LongContextData {
  const out: LongContextData = {};
  const starts = [...source.matchAll(/^([A-Z][A-Z0-9_]*)\s*=\s*/gm)];
  starts.forEach((m, i) => {
    const end = i + 1 < starts.length ? starts[i + 1]!.index : source.length;
    const body = source.slice(m.index + m[0].length, end).trim();
    try {
      out[m[1]!] = parsePythonLiteral(body, { ellipsis: "object" });
    } catch (e) {
      throw new EnvaceError("INVALID_DATA_FILE", `${where}: ${m[1]}: ${(e as Error).message}`);
    }
  });
  return out;
}

/** One constant, or a clear error naming the file that lacks it. */
export function longContextValue(data: LongContextData | undefined, name: string): PyValue {
  const v = data?.[name];
  if (v === undefined) {
    throw new EnvaceError(
      "INVALID_DATA_FILE",
      `long-context data ${name} is missing: run \`envace data fetch bfcl\` (it fetches bfcl/${LONG_CONTEXT_FILE})`,
    );
  }
  return v;
}
