import type { ToolCall } from "../core/messages.js";
import type { ToolResult, ToolSchema } from "../core/tools.js";

/**
 * A real, executable environment. `call` executes for real and never throws for a tool error
 * (unknown tool, bad arguments, a refusal): those come back as `{ ok: false, error }` and leave the
 * state unchanged. `snapshot`/`hash` expose the state for state-based evaluation.
 */
export interface Environment {
  tools(): ToolSchema[];
  call(call: ToolCall): Promise<ToolResult>;
  snapshot(): unknown;
  hash(): string;
  /** Releases processes or connections (MCP servers); a no-op for in-memory environments. */
  close?(): Promise<void>;
}
