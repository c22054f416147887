import type { ToolCall } from "../../core/messages.js";

/**
 * The parts of a τ² task the evaluator and the loop read, with upstream's JSON field names
 * (`tasks.json`). `src/envs/tau2/` loads and validates the files; this is the view we rely on.
 */
export type RewardType = "DB" | "ENV_ASSERTION" | "ACTION" | "COMMUNICATE" | "NL_ASSERTION";

/** Upstream's default basis when a task gives none (matches the original τ-bench). */
export const DEFAULT_REWARD_BASIS: readonly RewardType[] = ["DB", "COMMUNICATE"];

export interface Tau2Action {
  action_id?: string;
  requestor?: "assistant" | "user";
  name: string;
  arguments: Record<string, unknown>;
  /** Arguments compared by the ACTION check; null/absent = every argument of the predicted call. */
  compare_args?: string[] | null;
  info?: string | null;
}

export interface Tau2EnvAssertion {
  env_type: "assistant" | "user";
  func_name: string;
  arguments: Record<string, unknown>;
  assert_value?: boolean;
  message?: string | null;
}

export interface Tau2EvaluationCriteria {
  actions?: Tau2Action[] | null;
  env_assertions?: Tau2EnvAssertion[] | null;
  communicate_info?: string[] | null;
  nl_assertions?: string[] | null;
  reward_basis?: RewardType[] | null;
}

export interface Tau2TaskView {
  id: string;
  user_scenario?: unknown;
  evaluation_criteria?: Tau2EvaluationCriteria | null;
  initial_state?: unknown;
}

/** Who sent a trajectory message; tool messages carry the requestor of their call. */
export type Tau2Requestor = "assistant" | "user";

/**
 * One message of a τ² conversation. `requestor` is set on tool messages (whose call it answers)
 * and on calls that the user simulator made; `error` marks tool results that were errors.
 */
export interface Tau2Message {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  toolCalls?: ToolCall[];
  toolCallId?: string;
  name?: string;
  requestor?: Tau2Requestor;
  error?: boolean;
  /** Calls rejected before reaching the environment (unknown tool, bad arguments, bad JSON). */
  rejected?: boolean;
}

/**
 * Upstream's TerminationReason values. A successful transfer_to_human_agents is not one: upstream's
 * conversation goes on until the user simulator stops (the loop only counts transfers).
 */
export type Termination =
  "user_stop" | "agent_stop" | "max_steps" | "too_many_errors" | "agent_error" | "user_error";

/** Terminations after which the conversation is scored; any other scores 0 (as upstream). */
export const SCORED_TERMINATIONS: ReadonlySet<Termination> = new Set(["user_stop", "agent_stop"]);

export type ComponentStatus = "passed" | "failed" | "skipped" | "error";

export interface ComponentResult {
  status: ComponentStatus;
  /** 1 or 0; null when skipped or errored. */
  reward: number | null;
  /** Whether this component is in the task's reward_basis (only those enter the product). */
  inBasis: boolean;
  checks?: unknown[];
  note?: string;
}

export interface Tau2Evaluation {
  reward: number;
  /** The task's reward basis as used (upstream default when the task has none). */
  rewardBasis: RewardType[];
  components: Partial<Record<RewardType, ComponentResult>>;
  note?: string;
}
