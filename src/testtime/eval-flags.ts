import { EnvaceError } from "../core/errors.js";
import { parseMemoryKind, parseRehearsalScope, parseRehearsalSpec } from "./rehearsal-spec.js";
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
  /** A saved model directory, run through the worker (instead of --endpoint/--model). */
  checkpoint?: string;
}

/** The rehearsal options named by the flags; INVALID_CONFIG for malformed values. */
export function rehearsalFromFlags(o: RehearsalEvalFlags): RehearsalOptions {
  const { mode, n } = parseRehearsalSpec(o.rehearsal ?? "none");
  const promptVariant = o.rehearsalPrompt;
  if (promptVariant !== undefined && promptVariant !== "full" && promptVariant !== "compact") {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `--rehearsal-prompt must be full or compact, got "${promptVariant}"`,
    );
  }
  if (
    mode === "none" &&
    (o.memory !== undefined || o.rehearsalScope !== undefined || o.rehearsalUserReplies !== undefined)
  ) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      "--memory, --rehearsal-scope and --rehearsal-user-replies need --rehearsal parallel:N or sequential:N",
    );
  }
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
  };
}
