import type { EnvaceError } from "../../core/errors.js";
import type { ToolCall } from "../../core/messages.js";
import type { ToolSchema } from "../../core/tools.js";
import type { Tau2Message, Tau2TaskView } from "./types.js";

/** What an agent knows when an episode starts. */
export interface Tau2AgentContext {
  task: Tau2TaskView;
  /** The domain policy (markdown), for the system prompt. */
  policy: string;
  tools: ToolSchema[];
}

/** The agent's next message: text for the user, or tool calls (or both). */
export interface Tau2AgentReply {
  content: string;
  toolCalls: ToolCall[];
  /** Tool-call blocks the agent wrote but that could not be read (malformed `<tool_call>` text). */
  formatErrors?: EnvaceError[];
}

/** One episode's agent: given the conversation so far, produce the next assistant message. */
export interface Tau2AgentSession {
  next(history: readonly Tau2Message[]): Promise<Tau2AgentReply>;
}

/** An agent policy (an LLM, or an oracle); `start` is called once per episode. */
export interface Tau2Agent {
  readonly name: string;
  start(ctx: Tau2AgentContext): Tau2AgentSession;
}

/** Upstream half-duplex agents stop by writing this token; the loop then ends with `agent_stop`. */
export const AGENT_STOP = "###STOP###";
