/** Chat messages and tool calls as envace passes them around (OpenAI semantics, camelCase fields). */
export type Role = "system" | "user" | "assistant" | "tool";

export interface ToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

export interface Message {
  role: Role;
  content: string;
  toolCalls?: ToolCall[];
  /** For `tool` messages: the id of the call this message answers. */
  toolCallId?: string;
  /** For `tool` messages: the tool's name. */
  name?: string;
}

/** The two roles the one policy plays (ARCHITECTURE.md). */
export type PolicyRole = "act" | "rehearse";
