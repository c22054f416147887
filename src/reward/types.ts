import type { Message, ToolCall } from "../core/messages.js";
import type { Standard, Task } from "../core/task.js";

/** What the reward needs to know about one completed user turn. */
export interface TurnTranscript {
  /** Messages before this user turn (system prompt and earlier turns). */
  before: Message[];
  /** This turn: its user message, then the assistant and tool messages up to the final reply. */
  messages: Message[];
  /** Tool calls of this turn that passed validation (and so were answered). */
  calls: ToolCall[];
  /** Texts of this turn's assistant steps (outside `<think>`/`<tool_call>`), the reply last. */
  replies: string[];
}

export interface StandardVerdict {
  passed: boolean;
  /** The judge answered but not with the expected JSON: counted, and the standard fails. */
  parseError?: boolean;
}

export interface JudgeInput {
  task: Task;
  turn: number;
  standards: Standard[];
  transcript: TurnTranscript;
}

/**
 * Decides standards that have no `rule`. Returns one verdict per standard, in order. Throws
 * `EnvaceError("JUDGE_ERROR")` when the judge API itself fails (after its retries): the caller
 * masks the episode instead of scoring it 0.
 */
export interface Judge {
  judge(input: JudgeInput): Promise<StandardVerdict[]>;
}

export interface TurnScore {
  /** Σ over checklists of the weight-normalised score of this turn (in [0, num checklists]). */
  score: number;
  /** passed[c][k]: standard k of checklist c for this turn. */
  passed: boolean[][];
  judgeCalls: number;
  judgeParseErrors: number;
  /** A `required_for_next_turn` standard failed: the episode ends after this turn (reference). */
  requiredFailed: boolean;
}

export interface EpisodeScore {
  turnScores: number[];
  /** In [0, 1]; undefined when masked. */
  reward?: number;
  /** Every user turn completed and every standard met. */
  success: boolean;
  masked: boolean;
  judgeCalls: number;
  judgeParseErrors: number;
  /** Why the episode was masked. */
  maskReason?: string;
}
