import type { Message } from "../core/messages.js";
import type { Standard } from "../core/task.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import type { TurnTranscript } from "./types.js";

/** The judge's structured output (sent as the request's JSON-schema response format). */
export const VERDICT_SCHEMA = {
  name: "checklist_verdict",
  schema: {
    type: "object",
    properties: {
      understanding: { type: "string" },
      analysis_of_pass_condition: { type: "string" },
      analysis_of_failure_examples: { type: "string" },
      answer: { type: "boolean" },
    },
    required: ["understanding", "analysis_of_pass_condition", "analysis_of_failure_examples", "answer"],
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

/** One judge prompt per standard: the criterion, the earlier turns, and this turn to evaluate. */
export function buildJudgePrompt(standard: Standard, transcript: TurnTranscript): Message[] {
  const text = [
    "# Role",
    "You are a precise checklist evaluator. Judge whether the current messages between user, assistant and tool satisfy the criterion.",
    "",
    "# Criterion",
    `Question: ${standard.question}`,
    `Pass condition: ${standard.pass_condition}`,
    `Failure examples: ${JSON.stringify(standard.failure_examples)}`,
    "",
    "# Previous messages",
    renderMessages(transcript.before),
    "",
    "# Current messages to evaluate",
    renderMessages(transcript.messages),
    "",
    "# Rules",
    "A tool call whose tool response is an error does not count as made.",
    "Answer true only if the pass condition is fully met and no failure example is triggered.",
    "",
    "# Output",
    'Return only a JSON object: {"understanding": str, "analysis_of_pass_condition": str, "analysis_of_failure_examples": str, "answer": bool}',
  ].join("\n");
  return [{ role: "user", content: text }];
}
