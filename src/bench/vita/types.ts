/** VitaBench tasks and trajectories as the bench sees them. */
import type { PyValue } from "../../envs/vita/py-value.js";
import type { VitaDomainName } from "../../envs/vita/db.js";

export interface VitaExpectedState {
  required_orders?: unknown[] | null;
  optional_orders?: unknown[] | null;
  state_rubrics?: string[] | null;
}

export interface VitaEvaluationCriteria {
  expected_states?: VitaExpectedState[] | null;
  overall_rubrics?: string[] | null;
}

export interface VitaTask {
  id: string;
  domain: VitaDomainName;
  /** The task's `environment`, parsed so that floats stay floats (see `parsePy`). */
  environment: PyValue;
  /** `environment.time`: the frozen "now" of the task, shown to agent and judge. */
  environment_time: string | null;
  /** `user_scenario.user_profile` (the user simulator's persona). */
  user_profile: PyValue;
  /** What the user wants; the user simulator's instructions and the judge's reference. */
  instructions: string;
  evaluation_criteria: VitaEvaluationCriteria | null;
}

export interface VitaToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** One message of a VitaBench trajectory (upstream's `Message` subset the judge and agents read). */
export interface VitaMessage {
  role: "assistant" | "user" | "tool";
  content: string | null;
  toolCalls?: VitaToolCall[];
  /** Tool messages: the call they answer, and whether it raised. */
  toolCallId?: string;
  error?: boolean;
}
