/** Reads FinMCP-Bench sample files with errors that name the sample and field. */
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { FinSampleSchema, type FinSample } from "./types.js";

/** The published files: all three kinds together, and each kind alone. */
export const FINMCP_FILES = {
  final: "benchmark_final.json",
  single_step: "benchmark_stss.json",
  multi_step: "benchmark_stms.json",
  multi_turn: "benchmark_multi_turn.json",
} as const;
export type FinMcpVariant = keyof typeof FINMCP_FILES;

/** `path` is a sample file, or a folder holding the published files (`variant` picks one). */
export function finmcpFile(path: string, variant: FinMcpVariant = "final"): string {
  if (!existsSync(path))
    throw new EnvaceError(
      "INVALID_CONFIG",
      `FinMCP-Bench data not found at ${path}. Its data is published on Hugging Face (DianJin) under CC BY-NC-SA 4.0 and cannot be fetched by envace: download it and point --data at the folder or file`,
    );
  return statSync(path).isDirectory() ? join(path, FINMCP_FILES[variant]) : path;
}

export function readFinSamples(file: string): FinSample[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new EnvaceError("INVALID_DATA_FILE", `${file}: ${(e as Error).message}`);
  }
  if (!Array.isArray(raw))
    throw new EnvaceError("INVALID_DATA_FILE", `${file}: must be a JSON array of samples`);
  return raw.map((s, i) => {
    const parsed = FinSampleSchema.safeParse(s);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const id = (s as { id?: unknown })?.id;
      throw new EnvaceError(
        "INVALID_DATA_FILE",
        `${file}: sample ${i}${id !== undefined ? ` (id ${String(id)})` : ""}: ${issue?.path.join(".") ?? ""} ${issue?.message ?? "invalid"}`,
      );
    }
    return parsed.data;
  });
}
