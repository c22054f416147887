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
  if (mode === "none" && (o.memory !== undefined || o.rehearsalScope !== undefined)) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      "--memory and --rehearsal-scope need --rehearsal parallel:N or sequential:N",
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
  };
}
