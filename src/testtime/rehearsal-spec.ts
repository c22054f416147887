import { EnvaceError } from "../core/errors.js";
import type { NoteUse, RehearsalMemoryKind, RehearsalMode, RehearsalScope } from "./types.js";

/** Reads `none`, `parallel:N` or `sequential:N` (N ≥ 1; `parallel` alone means N = 1). */
export function parseRehearsalSpec(spec: string): { mode: RehearsalMode; n: number } {
  const m = /^(none|parallel|sequential)(?::(\d+))?$/.exec(spec.trim());
  const n = m?.[2] !== undefined ? Number(m[2]) : 1;
  if (!m || (m[1] === "none" && m[2] !== undefined) || n < 1) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `--rehearsal must be none, parallel:N or sequential:N (N ≥ 1), got "${spec}"`,
    );
  }
  return { mode: m[1] as RehearsalMode, n: m[1] === "none" ? 0 : n };
}

export function parseMemoryKind(v: string): RehearsalMemoryKind {
  if (v === "summary" || v === "digest" || v === "consensus") return v;
  throw new EnvaceError("INVALID_CONFIG", `--memory must be summary, digest or consensus, got "${v}"`);
}

export function parseRehearsalScope(v: string): RehearsalScope {
  if (v === "turn" || v === "action") return v;
  throw new EnvaceError("INVALID_CONFIG", `--rehearsal-scope must be turn or action, got "${v}"`);
}

export function parseNoteUse(v: string): NoteUse {
  if (v === "act" || v === "decide") return v;
  throw new EnvaceError("INVALID_CONFIG", `--note-use must be act or decide, got "${v}"`);
}
