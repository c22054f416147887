/**
 * Model inference over FinMCP-Bench samples, as upstream's `inference_api.py` runs it: for every
 * user message of the ground-truth conversation, the model gets the ground truth up to that
 * message and may call tools (answered by the replay environment) until it answers without a
 * call or `maxToolCalls` calls were made; its messages form `messages_pred`.
 */
import type { Message } from "../../core/messages.js";
import type { ChatModel } from "../../core/model.js";
import type { ToolSchema } from "../../core/tools.js";
import { parseAssistantText } from "../../core/tool-call-text.js";
import { callArguments, FinReplayEnvironment } from "./replay-env.js";
import type { FinMessage, FinSample } from "./types.js";

export const DEFAULT_MAX_TOOL_CALLS = 10;

function toCore(m: FinMessage): Message {
  if (m.role === "tool") return { role: "tool", content: m.content ?? "", toolCallId: m.tool_call_id ?? "" };
  if (m.role === "assistant" && m.tool_calls && m.tool_calls.length > 0)
    return {
      role: "assistant",
      content: m.content ?? "",
      toolCalls: m.tool_calls.map((c, i) => ({
        id: c.id ?? `gt_${i}`,
        name: c.function.name,
        arguments: callArguments(c),
      })),
    };
  return {
    role: m.role === "system" ? "system" : m.role === "assistant" ? "assistant" : "user",
    content: m.content ?? "",
  };
}

export async function inferSample(
  sample: FinSample,
  model: ChatModel,
  opts: { schemas?: ToolSchema[]; maxToolCalls?: number } = {},
): Promise<FinMessage[]> {
  const env = new FinReplayEnvironment(sample, opts.schemas);
  const maxCalls = opts.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  const pred: FinMessage[] = [];
  let turn = 0;
  for (const [i, m] of sample.messages.entries()) {
    if (m.role === "system" || m.role === "user") pred.push(m);
    if (m.role !== "user") continue;
    const history: Message[] = sample.messages.slice(0, i + 1).map(toCore);
    let calls = 0;
    for (;;) {
      const out = await model.chat({ messages: history, tools: env.tools(), temperature: 0 });
      const sample0 = out.samples[0];
      const parsed = parseAssistantText(sample0?.text ?? "", `p${turn++}`);
      const toolCalls =
        sample0?.toolCalls && sample0.toolCalls.length > 0 ? sample0.toolCalls : parsed.toolCalls;
      history.push({
        role: "assistant",
        content: parsed.content,
        ...(toolCalls.length ? { toolCalls } : {}),
      });
      pred.push({
        role: "assistant",
        content: parsed.content || null,
        ...(toolCalls.length
          ? {
              tool_calls: toolCalls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: JSON.stringify(c.arguments) },
              })),
            }
          : {}),
      });
      if (toolCalls.length === 0 || calls > maxCalls) break;
      calls += toolCalls.length;
      for (const c of toolCalls) {
        const r = await env.call(c);
        const content = r.ok ? r.content : JSON.stringify({ error: r.error.message });
        history.push({ role: "tool", content, toolCallId: c.id });
        pred.push({ role: "tool", content, tool_call_id: c.id });
      }
    }
  }
  return pred;
}
