import type { Message, ToolCall } from "../core/messages.js";
import type { Example, Task } from "../core/task.js";
import { renderAssistantText } from "../core/tool-call-text.js";
import { pyJsonDumps } from "../envs/tau2/py-json.js";

const pyDumpsIndent0 = (value: unknown): string => pyJsonDumps(value, { indent: 0 });

/**
 * The prompt that makes a model play the environment for one tool call (ARCHITECTURE.md, "One
 * episode"). `full` follows the reference: a stable system instruction (validation procedure and
 * output contract) and a per-call user part (candidate tools, few-shot examples, conversation
 * history, the raw act message, the current call). `compact` is for tiny models with short
 * contexts: a one-line contract, the caller's tenant line if its system prompt has one, only this
 * tool's examples, and the call; it shows no conversation. `compact-related` adds, before the call,
 * the conversation's earlier calls that share an argument value with it, with their results (the
 * last `RELATED_CALLS`): the lookup of the account a transfer draws on, of the event a move takes.
 */
export type RehearsalPromptVariant = "full" | "compact" | "compact-related";

export const REHEARSAL_PROMPT_VARIANTS: readonly RehearsalPromptVariant[] = [
  "full",
  "compact",
  "compact-related",
];

/** Earlier calls `compact-related` shows at most: the latest ones, in conversation order. */
export const RELATED_CALLS = 2;

export interface RehearsalPromptInput {
  task: Task;
  /** The conversation before the act message that made the call. */
  history: readonly Message[];
  /** The act message as the policy wrote it (with its `<tool_call>` blocks). */
  rawActMessage: string;
  call: ToolCall;
  variant?: RehearsalPromptVariant;
  /** `full` only: end the user part with Qwen3's `/think` switch (the reference's default). */
  think?: boolean;
}

/**
 * The reference's simulator system instruction (EnvACE, simulate_core/prompts/simulator/
 * validation_system_instruction.txt, Apache-2.0), verbatim: the `full` variant reproduces the
 * reference's prompt so a reference-trained rehearser sees what it was trained on.
 */
export const REHEARSAL_SYSTEM_FULL =
  'You are a precise tool simulator.\nYour task: validate the RL model\'s tool call against the candidate tools whitelist and the JSON schema, then generate the tool execution result.\n\nYou will be given (in the user message):\n- The candidate tools whitelist (list of tool schemas this sample is allowed to call)\n- Previous tool calls and results (few-shot, ground-truth reference data; may be <unavailable> when no prior calls exist)\n- Current conversation history\n- The RL model\'s latest response (containing <tool_call>...</tool_call> tags)\n- The current tool to simulate: name, JSON schema, parsed arguments\n\nValidation procedure (perform BEFORE generating execution result):\n\n1. Tool call format check\n   - The RL model\'s latest response must wrap the tool call inside <tool_call>...</tool_call> tags, with valid JSON `{"name": ..., "arguments": {...}}` inside.\n   - On failure (tool_call wrapper absent, or JSON malformed), output:\n     <execution_result>\n     {"error_tool_call":{"code":"INVALID_TOOL_CALL_FORMAT","message":"<concise reason>"}}\n     </execution_result>\n\n2. Tool whitelist check\n   - The tool name (shown under "Current tool to simulate") must appear in the candidate tools whitelist (either the explicit list, or the <tools> block inside the caller\'s system prompt).\n   - On failure, output:\n     <execution_result>\n     {"error_tool_call":{"code":"TOOL_NOT_AVAILABLE","message":"tool name \'<name>\' is not found. Please check your function call and use provided tools."}}\n     </execution_result>\n\n3. Argument schema check\n   - Arguments must be a JSON object satisfying the input schema (required fields present, primitive types match, enums match).\n   - On failure, output:\n     <execution_result>\n     {"error_tool_call":{"code":"INVALID_PARAMETERS","message":"<concise reason>","details":{"errors":[...]}}}\n     </execution_result>\n\n4. Tool response generation (only when 1+2+3 all pass)\n   - If a related call appears in the few-shot section with matching name and similar arguments, REUSE its execution_result content.\n   - Otherwise, generate a reasonable execution_result that strictly satisfies the input schema and stays factually consistent with the few-shot patterns.\n   - May need to fix some type or error in the examples.\n\nOutput rules (apply to both success and error paths):\n- Wrap the result in <execution_result>...</execution_result> XML tags.\n- Wrapped content must be valid JSON: a non-empty object or an array.\n- Return ONLY the wrapped JSON; no commentary, no markdown, no code fences.\n- Act as a silent function executor: no explanations, no suggestions, no hints, no references to examples or comparisons.\nFormat:\n<execution_result>\n<JSON object or array>\n</execution_result>';

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

/**
 * The reference's few-shot lines (build_few_shot_examples_lines): its `tool_call_response_map`
 * groups recorded calls by tool name in first-seen order, each call one block.
 */
function fewShot(examples: readonly Example[]): string[] {
  if (examples.length === 0) return ["Previous tool calls and results (few-shot): <unavailable>"];
  const byName = new Map<string, Example[]>();
  for (const e of examples) byName.set(e.name, [...(byName.get(e.name) ?? []), e]);
  const lines = ["Previous tool calls and results (few-shot):"];
  for (const [name, calls] of byName) {
    for (const e of calls) {
      const result = typeof e.result === "string" ? e.result : pyDumpsIndent0(e.result);
      lines.push(
        `Tool name:\n${name}\nTool arguments:\n${pyDumpsIndent0(e.arguments)}\nTool execution result:\n${result}\n`,
      );
    }
  }
  return lines;
}

/**
 * The conversation's answered calls that share an argument value with `call` (any argument, the
 * same JSON value), with their results as the tool returned them: the last `RELATED_CALLS`.
 * Why: under `compact` the rehearser never saw the lookup before a write and had to remember each
 * entity's status; it imagined forbidden writes accepted (issue 11, RESULTS.md).
 */
export function relatedCalls(
  history: readonly Message[],
  call: Pick<ToolCall, "arguments">,
): { name: string; arguments: Record<string, unknown>; result: string }[] {
  const values = new Set(Object.values(call.arguments).map((v) => JSON.stringify(v)));
  const results = new Map<string, string>();
  for (const m of history) if (m.role === "tool" && m.toolCallId) results.set(m.toolCallId, m.content);
  const out: { name: string; arguments: Record<string, unknown>; result: string }[] = [];
  for (const m of history)
    for (const c of m.role === "assistant" ? (m.toolCalls ?? []) : []) {
      const result = results.get(c.id);
      if (result === undefined) continue;
      if (Object.values(c.arguments).some((v) => values.has(JSON.stringify(v))))
        out.push({ name: c.name, arguments: c.arguments, result });
    }
  return out.slice(-RELATED_CALLS);
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

// The full variant's current-call section, written by buildRehearsalPrompt and read by readRehearsalCall.
const CURRENT_CALL = "Current tool to simulate:\n- name: ";
const ARGUMENTS = "- arguments (JSON, parsed from caller's tool_call):\n";
const THINK = "\n\n/think";

/**
 * The call a rehearsal prompt's user part asks about (either variant), for stand-in rehearsers
 * that answer from recorded results: the full variant's current-call section (its arguments run to
 * the end, before an optional `/think`), or the compact variant's last line `name {args} ->`.
 */
export function readRehearsalCall(user: string): Pick<ToolCall, "name" | "arguments"> | undefined {
  let found: [string, string] | undefined;
  const at = user.lastIndexOf(CURRENT_CALL);
  if (at >= 0) {
    const rest = user.slice(at + CURRENT_CALL.length);
    const argsAt = rest.indexOf(ARGUMENTS);
    if (argsAt >= 0) {
      const args = rest.slice(argsAt + ARGUMENTS.length);
      found = [rest.slice(0, rest.indexOf("\n")), args.endsWith(THINK) ? args.slice(0, -THINK.length) : args];
    }
  } else {
    const compact = /^(\S+) (.*) ->$/.exec(user.split("\n").pop() ?? "");
    if (compact) found = [compact[1]!, compact[2]!];
  }
  if (!found) return undefined;
  try {
    const args = JSON.parse(found[1]) as unknown;
    if (typeof args !== "object" || args === null || Array.isArray(args)) return undefined;
    return { name: found[0], arguments: args as Record<string, unknown> };
  } catch {
    return undefined;
  }
}

/**
 * The caller's system prompt lines that name the world it serves (`tenant: …`: a tenant, a
 * database). The compact prompt shows them first: without them an unseen call (an id no example
 * shows) is unanswerable when a domain has several worlds, since the same id differs per world.
 */
export function tenantLines(system: string): string[] {
  return system.split("\n").filter((l) => /^tenant: \S/.test(l));
}

export function buildRehearsalPrompt(input: RehearsalPromptInput): Message[] {
  const { task, call } = input;
  if (input.variant === "compact" || input.variant === "compact-related") {
    const same = task.examples.filter((e) => e.name === call.name);
    const lines = tenantLines(task.system);
    lines.push(...same.map((e) => `${e.name} ${json(e.arguments)} -> ${json(e.result)}`));
    if (input.variant === "compact-related")
      lines.push(
        ...relatedCalls(input.history, call).map((r) => `${r.name} ${json(r.arguments)} -> ${r.result}`),
      );
    lines.push(`${call.name} ${json(call.arguments)} ->`);
    return [
      { role: "system", content: REHEARSAL_SYSTEM_COMPACT },
      { role: "user", content: lines.join("\n") },
    ];
  }
  // The reference's build_validation_user_prompt: per-call sections joined by a blank line, JSON as
  // Python's json.dumps(..., ensure_ascii=True, indent=0) writes it.
  const schema = task.tools.find((t) => t.name === call.name)?.parameters ?? {};
  const parts = [
    `Candidate tools (whitelist for this sample):\n${pyDumpsIndent0(task.tools)}`,
    fewShot(task.examples).join("\n"),
    `Current conversation history:\n${serializeHistory(input.history)}`,
    ...(input.rawActMessage ? [`RL model's latest response:\n${input.rawActMessage}`] : []),
    `${CURRENT_CALL}${call.name}\n` +
      `- input schema (JSON Schema):\n${pyDumpsIndent0(schema)}\n` +
      `${ARGUMENTS}${pyDumpsIndent0(call.arguments)}`,
  ];
  let user = parts.join("\n\n");
  if (input.think) user += THINK; // Qwen3's switch; the reference appends it by default
  return [
    { role: "system", content: REHEARSAL_SYSTEM_FULL },
    { role: "user", content: user },
  ];
}
