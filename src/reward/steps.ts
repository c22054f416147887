import type { Message, ToolCall } from "../core/messages.js";
import type { TurnTranscript } from "./types.js";

/** One assistant step of a user turn, as the reference's judge sees it (interaction.py). */
export interface AssistantStep {
  /** The turn's messages up to this step and the tool responses that follow it. */
  messagesUpTo: Message[];
  /** This step's calls that were made (passed validation and were answered). */
  calls: ToolCall[];
  /** The step's text outside `<think>` and call blocks (one entry; several for a transcript without messages). */
  texts: string[];
  /** A following tool response is an `error_tool_call` object: the step's tool calls are invalid. */
  toolError: boolean;
}

/**
 * Splits a turn into its assistant steps (`transcript.replies[i]` is step i's text). A transcript
 * that carries calls and replies but no messages (scored from outside an episode) is one step.
 */
export function assistantSteps(transcript: TurnTranscript): AssistantStep[] {
  if (!transcript.messages.some((m) => m.role === "assistant")) {
    return [
      {
        messagesUpTo: transcript.messages,
        calls: [...transcript.calls],
        texts: [...transcript.replies],
        toolError: false,
      },
    ];
  }
  const made = new Set(transcript.calls.map((c) => c.id));
  const msgs = transcript.messages;
  const steps: AssistantStep[] = [];
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i]!;
    if (m.role !== "assistant") continue;
    let j = i + 1;
    let toolError = false;
    while (j < msgs.length && msgs[j]!.role === "tool") {
      if (isErrorToolCall(msgs[j]!.content)) toolError = true;
      j++;
    }
    steps.push({
      messagesUpTo: msgs.slice(0, j),
      calls: (m.toolCalls ?? []).filter((c) => made.has(c.id)),
      texts: [transcript.replies[steps.length] ?? m.content],
      toolError,
    });
  }
  return steps;
}

/** The reference's test: the tool content parses as a JSON object with an `error_tool_call` key. */
function isErrorToolCall(content: string): boolean {
  if (!content.includes("error_tool_call")) return false;
  try {
    const v: unknown = JSON.parse(content);
    return typeof v === "object" && v !== null && !Array.isArray(v) && "error_tool_call" in v;
  } catch {
    return false;
  }
}
