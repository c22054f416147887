/**
 * One error family: every error envace throws or returns carries a stable `code` that tests and the
 * CLI match on. Tool failures are data (`ToolResult` with `ok: false`); these classes are also used
 * as that data's payload, and thrown only for broken configuration, dead endpoints or bugs.
 */
export type ErrorCode =
  // tool calls (returned to the agent as error results)
  | "INVALID_TOOL_CALL_FORMAT"
  | "TOOL_NOT_AVAILABLE"
  | "INVALID_PARAMETERS"
  | "TOOL_EXECUTION_ERROR"
  // rehearsed responses (rollout/)
  | "EMPTY_SIMULATOR_OUTPUT"
  | "NO_EXECUTION_RESULT_TAG_FOUND"
  | "EXECUTION_RESULT_TAG_MALFORMED"
  | "SIMULATOR_JSON_DECODE_ERROR"
  | "INVALID_EXECUTION_RESULT_TYPE"
  // configuration and input files
  | "INVALID_CONFIG"
  | "INVALID_TASK_FILE"
  | "INVALID_DATA_FILE"
  // engines and services
  | "WORKER_UNAVAILABLE"
  | "WORKER_ERROR"
  | "ENDPOINT_ERROR"
  | "JUDGE_ERROR"
  | "MCP_ERROR"
  | "DATA_DOWNLOAD_ERROR"
  | "CONTEXT_BUDGET_EXCEEDED"
  // test-time rehearsal (testtime/)
  | "REHEARSAL_BUDGET_EXHAUSTED"
  | "REAL_CALL_DURING_REHEARSAL"
  // runs (demo/): some arms (or seeds' SFT stages) failed, the finished arms were kept
  | "ARMS_FAILED";

export class EnvaceError extends Error {
  readonly code: ErrorCode;
  readonly details?: unknown;
  constructor(code: ErrorCode, message: string, details?: unknown) {
    super(message);
    this.name = "EnvaceError";
    this.code = code;
    this.details = details;
  }
}

export function isEnvaceError(e: unknown, code?: ErrorCode): e is EnvaceError {
  return e instanceof EnvaceError && (code === undefined || e.code === code);
}

/** An error as one line for people: `[CODE] message` for an envace error, the message otherwise. */
export function errorLine(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown } | null | undefined;
  const code = typeof err?.code === "string" && err.code ? `[${err.code}] ` : "";
  return `${code}${typeof err?.message === "string" ? err.message : String(e)}`;
}
