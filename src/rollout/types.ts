import type { Message, PolicyRole, ToolCall } from "../core/messages.js";

/**
 * The contract between rollout/ (produces episodes) and train/ (consumes them). One row per policy
 * model call (ARCHITECTURE.md): the prompt's token ids, the sampled token ids and their logprobs.
 */
export interface Row {
  role: PolicyRole;
  promptTokenIds: number[];
  tokenIds: number[];
  logprobs: number[];
  /** The user turn (0-based) during which the call was made. */
  turn: number;
  /** The policy version that sampled it, when the server names one (`<run>@<step>` on vLLM). */
  policyVersion?: string;
  /** A rehearse row: the index in the episode's `calls` of the call it answered. */
  callIndex?: number;
  /**
   * The row's own reward, where a sampler scores it apart from its episode (the demo's
   * `rehearseReward: "logged"` experiment); such rows form their own GRPO group (`advantages.ts`).
   */
  reward?: number;
}

/** How a tool call is answered during a run (ARCHITECTURE.md, "One episode"). */
export type ResponderMode = "real" | "simulator" | "rehearsal";

/** Why an episode ended. Limits end an episode cleanly; they never truncate silently. */
export type EndReason =
  | "done"
  | "max_assistant_turns"
  | "max_parallel_calls"
  | "context_budget"
  | "rehearser_error_tool_call"
  | "rehearser_parse_error"
  | "invalid_call"
  | "required_standard_failed"
  | "judge_malformed"
  | "max_steps"
  | "model_error";

export interface ToolCallRecord {
  turn: number;
  call: ToolCall;
  /** The answer the actor saw (real, simulated or rehearsed), as a string. */
  result: string;
  ok: boolean;
  /** Which responder produced it; `validation` when the call never reached a responder. */
  source: ResponderMode | "validation" | "cache";
  /** For rehearsed/simulated answers that failed to parse: the parser's error code. */
  parseError?: string;
}

export interface EpisodeResult {
  taskId: string;
  /** Index of the episode inside its task's group (0..G-1). */
  sample: number;
  messages: Message[];
  rows: Row[];
  calls: ToolCallRecord[];
  /** Final replies to the user, one per completed user turn. */
  replies: string[];
  endReason: EndReason;
  /** Real environment calls made by this episode (0 in rehearsal and simulator modes). */
  envCalls: number;
  /** Episode reward in [0, 1]; undefined when masked. */
  reward?: number;
  /** True when the judge failed at the API level: the episode is excluded from the update. */
  masked: boolean;
  /** Per-turn scores before normalisation (reward/). */
  turnScores: number[];
  /** passed[t][c][k]: standard k of checklist c for user turn t (scored turns only), for logs. */
  standardsPassed?: boolean[][][];
  success: boolean;
  /** Why the episode was masked (the judge's API error). */
  maskReason?: string;
  /** With `model_error`: the failure's message. */
  error?: string;
}
