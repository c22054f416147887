import type { Message } from "../core/messages.js";
import type { ChatModel, ChatRequest } from "../core/model.js";
import type { ToolSchema } from "../core/tools.js";

/**
 * A one-line index of the tools, `tools: find_user(email) get_order(order_id) …`: what a tiny model
 * needs to call a domain's tools (names and argument names) at a tenth of the schemas' tokens. It
 * is how the held-out domain's tools reach the model at all.
 */
export function toolIndex(tools: readonly ToolSchema[]): string {
  const sig = (t: ToolSchema) => {
    const props = (t.parameters as { properties?: Record<string, unknown> }).properties ?? {};
    return `${t.name}(${Object.keys(props).join(",")})`;
  };
  return `tools: ${tools.map(sig).join(" ")}`;
}

/** The act prompt's messages with the tool index appended to the system message (added if absent). */
export function withToolIndex(
  messages: readonly Message[],
  tools: readonly ToolSchema[] | undefined,
): Message[] {
  if (!tools || tools.length === 0) return [...messages];
  const index = toolIndex(tools);
  const [first, ...rest] = messages;
  if (first?.role === "system") return [{ ...first, content: `${first.content}\n${index}` }, ...rest];
  return [{ role: "system", content: index }, ...messages];
}

/**
 * The tiny model's view of an act request: the tool schemas (which would triple the prompt) become
 * the one-line index in the system message; everything else passes through. Requests without
 * tools (rehearsal prompts) are unchanged.
 */
export function withCompactTools(model: ChatModel): ChatModel {
  return {
    name: model.name,
    chat(request: ChatRequest, options) {
      const { tools, ...rest } = request;
      return model.chat({ ...rest, messages: withToolIndex(request.messages, tools) }, options);
    },
  };
}
