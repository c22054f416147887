import type { Message } from "../core/messages.js";
import type { Standard } from "../core/task.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import type { TurnTranscript } from "./types.js";

/** The judge's structured output (sent as the request's JSON-schema response format). */
export const VERDICT_SCHEMA = {
  name: "evaluation_verdict",
  schema: {
    type: "object",
    properties: {
      high_level_understanding_of_the_question: { type: "string" },
      analysis_of_if_focus_on: { type: "string" },
      analysis_of_pass_condition: { type: "string" },
      analysis_of_failure_examples: { type: "string" },
      answer: { type: "boolean" },
    },
    required: [
      "high_level_understanding_of_the_question",
      "analysis_of_if_focus_on",
      "analysis_of_pass_condition",
      "analysis_of_failure_examples",
      "answer",
    ],
    additionalProperties: false,
  },
} as const;

function renderMessages(messages: readonly Message[]): string {
  const lines = messages
    .filter((m) => m.role !== "system")
    .map((m) => {
      if (m.role === "assistant") return `Assistant: ${renderAssistantText(m.content, m.toolCalls ?? [])}`;
      if (m.role === "tool") return `Tool[${m.name ?? ""}]: ${m.content}`;
      return `User: ${m.content}`;
    });
  return lines.length > 0 ? lines.join("\n\n") : "(none)";
}

/**
 * One judge prompt per standard and assistant step, with the reference's sections
 * (checklist_reward.py `get_input_prompt_v2`): the criterion with its focus and reference snippet,
 * the earlier turns, this turn up to the step being judged, the tool-call rules, the evaluation
 * process and the output format. Messages are rendered our way (role-prefixed), not with the
 * reference's step headers.
 */
export function buildJudgePrompt(standard: Standard, transcript: TurnTranscript): Message[] {
  const text = [
    "# Role",
    "You are a precise checklist evaluator. Your sole task is to judge whether the messages between user, assistant and tool satisfy the provided criteria.",
    "",
    "# Objective",
    "Produce a strict JSON verdict (no extra text) based on the instructions below.",
    "",
    "# Criteria",
    `**Question:** ${standard.question}`,
    `**Focus on:** ${standard.focus_on ?? ""}`,
    `**Pass condition:** ${standard.pass_condition}`,
    `**Failure examples:** ${JSON.stringify(standard.failure_examples, null, 2)}`,
    `**Reference snippet:** ${JSON.stringify(standard.reference === undefined ? [] : [standard.reference], null, 2)}`,
    "",
    "# Previous Messages",
    renderMessages(transcript.before),
    "",
    "# Current Messages to Evaluate",
    renderMessages(transcript.messages),
    "",
    "# Special rule of tool call",
    "If a tool call appears only inside the assistant's text and not as a tool call, its format is not correct and no tool call is valid. If a tool response is an error, the tool calls of the latest assistant message (only that one) are not valid.",
    "",
    "# Evaluation Process (Align each step to a JSON output field)",
    "1. high_level_understanding_of_the_question: briefly restate what is being evaluated.",
    "2. analysis_of_if_focus_on: check whether the Focus on part is present in the Current Messages.",
    "3. analysis_of_pass_condition: determine if the Pass condition is fully satisfied.",
    "4. analysis_of_failure_examples: for each failure example, state 'triggered' or 'not triggered' with a brief reason.",
    "5. answer: true ONLY IF the Focus on part is present, the Pass condition is fully met and no failure example is triggered; otherwise false.",
    "",
    "# Output Format",
    'Return ONLY a single JSON object with exactly these keys: {"high_level_understanding_of_the_question": str, "analysis_of_if_focus_on": str, "analysis_of_pass_condition": str, "analysis_of_failure_examples": str, "answer": bool}',
  ].join("\n");
  return [{ role: "user", content: text }];
}
