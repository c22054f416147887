import type { Message, ToolCall } from "../core/messages.js";
import type { Example, Task } from "../core/task.js";
import { renderAssistantText } from "../core/tool-call-text.js";

/**
 * The prompt that makes a model play the environment for one tool call (ARCHITECTURE.md, "One
 * episode"). `full` follows the reference: a stable system instruction (validation procedure and
 * output contract) and a per-call user part (candidate tools, few-shot examples, conversation
 * history, the raw act message, the current call). `compact` is for tiny models with short
 * contexts: a one-line contract, only this tool's examples, and the call.
 */
export type RehearsalPromptVariant = "full" | "compact";

export interface RehearsalPromptInput {
  task: Task;
  /** The conversation before the act message that made the call. */
  history: readonly Message[];
  /** The act message as the policy wrote it (with its `<tool_call>` blocks). */
  rawActMessage: string;
  call: ToolCall;
  variant?: RehearsalPromptVariant;
}

export const REHEARSAL_SYSTEM_FULL = [
  "You are a tool simulator: you play the environment and return what the tool would return.",
  "",
  "The user message gives you: the candidate tools (the whitelist for this task), earlier recorded calls with their real results (few-shot evidence, possibly unavailable), the conversation so far, the agent's latest message with its <tool_call> blocks, and the one call to answer now (name, input schema, arguments).",
  "",
  "Check the call before answering, in this order:",
  '1. Format: the agent\'s message must hold the call as <tool_call>{"name": ..., "arguments": {...}}</tool_call> with valid JSON. Otherwise answer {"error_tool_call": {"code": "INVALID_TOOL_CALL_FORMAT", "message": "<short reason>"}}.',
  '2. Whitelist: the tool name must be one of the candidate tools. Otherwise answer {"error_tool_call": {"code": "TOOL_NOT_AVAILABLE", "message": "tool \'<name>\' is not available"}}.',
  '3. Arguments: they must satisfy the input schema (required fields, types, enums). Otherwise answer {"error_tool_call": {"code": "INVALID_PARAMETERS", "message": "<short reason>", "details": {"errors": [...]}}}.',
  "4. Only if all checks pass, produce the result: when a few-shot call has the same name and matching arguments, reuse its result; otherwise write a plausible result that fits the schema and stays consistent with the evidence and the conversation.",
  "",
  "Output contract (success and error alike): only the JSON, a non-empty object or an array, wrapped as",
  "<execution_result>",
  "<JSON>",
  "</execution_result>",
  "No commentary, no markdown, no code fences, no hints to the agent.",
].join("\n");

export const REHEARSAL_SYSTEM_COMPACT =
  "Simulate the tool. Reply <execution_result>\\nJSON\\n</execution_result>.".replace(/\\n/g, "\n");

/** True when a chat request is a rehearsal (its system message is one of ours). */
export function isRehearsalRequest(messages: readonly Message[]): boolean {
  const sys = messages[0];
  return (
    sys?.role === "system" &&
    (sys.content === REHEARSAL_SYSTEM_FULL || sys.content === REHEARSAL_SYSTEM_COMPACT)
  );
}

const json = (v: unknown): string => (typeof v === "string" ? v : JSON.stringify(v));

function fewShot(examples: readonly Example[]): string {
  if (examples.length === 0) return "Recorded calls and results (few-shot): <unavailable>";
  const blocks = examples.map(
    (e) =>
      `Tool name:\n${e.name}\nTool arguments:\n${json(e.arguments)}\nTool execution result:\n${json(e.result)}`,
  );
  return ["Recorded calls and results (few-shot):", ...blocks].join("\n\n");
}

/** The conversation as role-prefixed text (system omitted), calls rendered inline. */
export function serializeHistory(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    if (m.role === "user" && m.content.trim()) lines.push(`User: ${m.content.trim()}`);
    else if (m.role === "assistant") {
      const text = renderAssistantText(m.content, m.toolCalls ?? []);
      if (text) lines.push(`Assistant: ${text}`);
    } else if (m.role === "tool" && m.content.trim())
      lines.push(`Tool[${m.name ?? ""}]: ${m.content.trim()}`);
  }
  return lines.length > 0 ? lines.join("\n\n") : "No conversation history";
}

export function buildRehearsalPrompt(input: RehearsalPromptInput): Message[] {
  const { task, call } = input;
  if (input.variant === "compact") {
    const same = task.examples.filter((e) => e.name === call.name);
    const lines = same.map((e) => `${e.name} ${json(e.arguments)} -> ${json(e.result)}`);
    lines.push(`${call.name} ${json(call.arguments)} ->`);
    return [
      { role: "system", content: REHEARSAL_SYSTEM_COMPACT },
      { role: "user", content: lines.join("\n") },
    ];
  }
  const schema = task.tools.find((t) => t.name === call.name)?.parameters ?? {};
  const user = [
    `Candidate tools (whitelist for this task):\n${JSON.stringify(task.tools)}`,
    fewShot(task.examples),
    `Current conversation history:\n${serializeHistory(input.history)}`,
    `The agent's latest message:\n${input.rawActMessage}`,
    `Current tool to simulate:\n- name: ${call.name}\n- input schema (JSON Schema):\n${JSON.stringify(schema)}\n- arguments (JSON):\n${JSON.stringify(call.arguments)}`,
  ].join("\n\n");
  return [
    { role: "system", content: REHEARSAL_SYSTEM_FULL },
    { role: "user", content: user },
  ];
}
