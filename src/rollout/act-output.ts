import type { EnvaceError } from "../core/errors.js";
import type { ToolCall } from "../core/messages.js";
import type { Sample } from "../core/model.js";
import { parseAssistantText, stripThink } from "../core/tool-call-text.js";

export interface ActOutput {
  /** Text for the user (outside `<think>` and `<tool_call>` blocks). */
  content: string;
  calls: ToolCall[];
  /** Malformed `<tool_call>` blocks. */
  errors: EnvaceError[];
}

/** Reads an act sample: the server's parsed `tool_calls` when it gave them, else the text format. */
export function readActOutput(sample: Sample, idPrefix: string): ActOutput {
  if (sample.toolCalls && sample.toolCalls.length > 0) {
    return { content: stripThink(sample.text).trim(), calls: sample.toolCalls, errors: [] };
  }
  const parsed = parseAssistantText(sample.text, idPrefix);
  return { content: parsed.content, calls: parsed.toolCalls, errors: parsed.errors };
}
