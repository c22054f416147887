import type { ErrorCode } from "../core/errors.js";
import type { Message, ToolCall } from "../core/messages.js";
import type { ChatResult, Sample } from "../core/model.js";
import type { Task } from "../core/task.js";
import type { ResponderMode } from "./types.js";

/** One validated tool call to answer, with what a simulator needs to see. */
export interface CallContext {
  task: Task;
  /** The conversation before the act message that made this call. */
  history: Message[];
  /** The act message as the policy wrote it. */
  rawActMessage: string;
  call: ToolCall;
  /** User turn (0-based). */
  turn: number;
  signal?: AbortSignal;
}

export interface ResponderAnswer {
  /** What the actor sees as the tool message's content. */
  content: string;
  ok: boolean;
  /** For simulated/rehearsed answers that failed the strict parser. */
  parseError?: ErrorCode;
  /** The simulator/rehearser judged the call invalid (`error_tool_call`): the episode ends. */
  verdict?: { code: string; message: string };
  /** The policy's own model call (rehearsal mode): becomes a `rehearse` row. */
  policyCall?: { result: ChatResult; sample: Sample };
}

/** The responder's state for one episode (for `real`: that episode's environment). */
export interface EpisodeResponder {
  answer(ctx: CallContext): Promise<ResponderAnswer>;
  /** Real environment calls made so far. */
  readonly envCalls: number;
  /** True when calls must be answered one after another (stateful environments). */
  readonly sequential: boolean;
  close(): Promise<void>;
}

/** How tool calls are answered during a run; `open` is called once per episode. */
export interface Responder {
  readonly mode: ResponderMode;
  open(task: Task): Promise<EpisodeResponder>;
}
