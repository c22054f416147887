import { readFileSync } from "node:fs";

/**
 * The JSON objects of a JSONL log (metrics.jsonl, curve.jsonl), one a line. Blank lines, a line cut
 * by a crash and anything not an object are skipped: a report is drawn from what a run left.
 */
export function readLogObjects(file: string): Record<string, unknown>[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .flatMap((line) => {
      if (line.trim() === "") return [];
      try {
        const v: unknown = JSON.parse(line);
        return v !== null && typeof v === "object" && !Array.isArray(v) ? [v as Record<string, unknown>] : [];
      } catch {
        return [];
      }
    });
}
