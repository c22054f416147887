import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { EnvaceError } from "../../core/errors.js";

/** What a failed `tools/call` means for the agent, and whether the connection is gone. */
export interface MappedCallError {
  error: EnvaceError;
  /** True when the server (or the link to it) is gone; the environment reconnects before the next call. */
  connectionLost: boolean;
}

/** The SDK prefixes JSON-RPC errors with "MCP error <code>: "; the agent only needs the server's words. */
export function stripMcpPrefix(message: string): string {
  return message.replace(/^MCP error -?\d+: /, "");
}

/**
 * A thrown error from `client.callTool` as a tool error. JSON-RPC errors the server sent back are
 * the agent's problem (unknown tool, bad arguments, a failing tool); a closed connection, a timeout
 * or a transport failure is the environment's problem (MCP_ERROR).
 */
export function mapCallError(e: unknown, toolName: string): MappedCallError {
  if (e instanceof McpError) {
    const message = stripMcpPrefix(e.message);
    switch (e.code) {
      case ErrorCode.ConnectionClosed:
        return lost(`stopped during '${toolName}' (${message}); the call may not have completed`, e);
      case ErrorCode.RequestTimeout:
        return {
          error: new EnvaceError("MCP_ERROR", `MCP call '${toolName}' timed out: ${message}`),
          connectionLost: false,
        };
      case ErrorCode.MethodNotFound:
        return kept("TOOL_NOT_AVAILABLE", message, e);
      case ErrorCode.InvalidParams:
        // The SDK's McpServer and most servers say "Tool X not found" for an unknown name.
        return /not found|unknown tool|disabled/i.test(message)
          ? kept("TOOL_NOT_AVAILABLE", message, e)
          : kept("INVALID_PARAMETERS", message, e);
      default:
        return kept("TOOL_EXECUTION_ERROR", message, e);
    }
  }
  const message = e instanceof Error ? e.message : String(e);
  return lost(`connection failed during '${toolName}' (${message}); the call may not have completed`, e);
}

function kept(
  code: "TOOL_NOT_AVAILABLE" | "INVALID_PARAMETERS" | "TOOL_EXECUTION_ERROR",
  message: string,
  e: McpError,
): MappedCallError {
  return {
    error: new EnvaceError(code, message, { jsonRpcCode: e.code, data: e.data }),
    connectionLost: false,
  };
}

function lost(message: string, cause: unknown): MappedCallError {
  return { error: new EnvaceError("MCP_ERROR", message, { cause: String(cause) }), connectionLost: true };
}

/**
 * An `isError: true` result as a tool error. Servers built on the SDK's McpServer report bad
 * arguments and unknown tools this way too (not as JSON-RPC errors), with fixed wordings we can
 * recognise; anything else is the tool failing.
 */
export function mapErrorResult(raw: string): EnvaceError {
  // McpServer wraps a thrown McpError's message, SDK prefix included.
  const text = stripMcpPrefix(raw);
  if (/^Input validation error:/.test(text)) return new EnvaceError("INVALID_PARAMETERS", text);
  if (/^Tool \S+ (not found|disabled)$/.test(text)) return new EnvaceError("TOOL_NOT_AVAILABLE", text);
  return new EnvaceError("TOOL_EXECUTION_ERROR", text);
}
