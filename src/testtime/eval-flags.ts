import { EnvaceError } from "../core/errors.js";
import { parseNoteUse, parseMemoryKind, parseRehearsalScope, parseRehearsalSpec } from "./rehearsal-spec.js";
import { REHEARSAL_PROMPT_VARIANTS, type RehearsalPromptVariant } from "../rollout/rehearsal-prompt.js";
import type { RehearsalOptions } from "./types.js";

/** The `envace eval` flags for test-time rehearsal (read by every bench that supports it). */
export interface RehearsalEvalFlags {
  /** `none` | `parallel:N` | `sequential:N` (default none). */
  rehearsal?: string;
  /** `summary` | `digest` (default digest). */
  memory?: string;
  /** `turn` | `action` (default turn). */
  rehearsalScope?: string;
  /** Tokens one attempt may generate. */
  rehearsalMaxTokens?: number;
  /** Total rehearsal tokens per episode. */
  rehearsalBudget?: number;
  /** Rehearsal prompt as in training: `full` | `compact` (default full). */
  rehearsalPrompt?: string;
  /** τ²: imagined user replies an attempt may go on through (a non-negative integer; default the bench's). */
  rehearsalUserReplies?: number | string;
  /**
   * Comma-separated side-effecting tools the committed run will not call where the rehearsal saw
   * them refused; `writes`: the bench's own state-changing tools (`guardsWrites`).
   */
  guardTools?: string;
  /** What the note does in the committed run: `act` | `decide` (default act). */
  noteUse?: string;
  /** A saved model directory, run through the worker (instead of --endpoint/--model). */
  checkpoint?: string;
}

/** The option keys of the rehearsal flags (`--checkpoint` aside: some benches read it without them). */
export const REHEARSAL_FLAG_KEYS = [
  "rehearsal",
  "memory",
  "rehearsalScope",
  "rehearsalMaxTokens",
  "rehearsalBudget",
  "rehearsalPrompt",
  "rehearsalUserReplies",
  "guardTools",
  "noteUse",
] as const satisfies readonly Exclude<keyof RehearsalEvalFlags, "checkpoint">[];

/** The rehearsal options named by the flags; INVALID_CONFIG for malformed values. */
export function rehearsalFromFlags(o: RehearsalEvalFlags): RehearsalOptions {
  const { mode, n } = parseRehearsalSpec(o.rehearsal ?? "none");
  const promptVariant = o.rehearsalPrompt as RehearsalPromptVariant | undefined; // checked below
  if (promptVariant !== undefined && !REHEARSAL_PROMPT_VARIANTS.includes(promptVariant)) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `--rehearsal-prompt must be ${REHEARSAL_PROMPT_VARIANTS.join(", ")}, got "${promptVariant}"`,
    );
  }
  if (
    mode === "none" &&
    (o.memory !== undefined ||
      o.rehearsalScope !== undefined ||
      o.rehearsalUserReplies !== undefined ||
      o.guardTools !== undefined ||
      o.noteUse !== undefined)
  ) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      "--memory, --rehearsal-scope, --rehearsal-user-replies, --guard-tools and --note-use need --rehearsal parallel:N or sequential:N",
    );
  }
  const guardTools =
    o.guardTools === undefined || guardsWrites(o) ? undefined : parseGuardTools(o.guardTools);
  const raw = o.rehearsalUserReplies;
  const userReplies = raw === undefined ? undefined : /^\d+$/.test(String(raw).trim()) ? Number(raw) : NaN;
  if (userReplies !== undefined && !Number.isSafeInteger(userReplies)) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `--rehearsal-user-replies must be a non-negative integer, got "${String(o.rehearsalUserReplies)}"`,
    );
  }
  return {
    mode,
    n,
    memory: o.memory !== undefined ? parseMemoryKind(o.memory) : "digest",
    scope: o.rehearsalScope !== undefined ? parseRehearsalScope(o.rehearsalScope) : "turn",
    ...(o.rehearsalMaxTokens !== undefined ? { maxTokensPerAttempt: o.rehearsalMaxTokens } : {}),
    ...(o.rehearsalBudget !== undefined ? { tokenBudget: o.rehearsalBudget } : {}),
    ...(promptVariant ? { promptVariant } : {}),
    ...(userReplies !== undefined ? { userReplies } : {}),
    ...(guardTools ? { guardTools } : {}),
    ...(o.noteUse !== undefined ? { noteUse: parseNoteUse(o.noteUse) } : {}),
  };
}

/**
 * `--guard-tools writes`: the bench resolves the tools itself (τ²'s mutating tools, VitaBench's write
 * tools, toolworld's domain writes); `rehearsalFromFlags` leaves `guardTools` unset for it.
 */
export function guardsWrites(o: RehearsalEvalFlags): boolean {
  return o.guardTools?.trim() === "writes";
}

/** `--guard-tools a,b`: tool names (letters, digits, `_ . -`), at least one. */
function parseGuardTools(v: string): string[] {
  const names = v.split(",").map((s) => s.trim());
  if (names.length === 0 || names.some((n) => !/^[A-Za-z0-9_.-]+$/.test(n))) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `--guard-tools must be a comma-separated list of tool names, got "${v}"`,
    );
  }
  return names;
}

/** `--guard-tools` names the bench has no tool for: INVALID_CONFIG (a typo would guard nothing). */
export function checkGuardTools(rehearsal: RehearsalOptions, known: readonly string[], bench: string): void {
  const unknown = (rehearsal.guardTools ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `--guard-tools: ${bench} has no tool ${unknown.map((n) => `"${n}"`).join(", ")} (its tools: ${known.join(", ")})`,
    );
  }
}
