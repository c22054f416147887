import type { ChatModel, ChatRequest } from "../core/model.js";

/**
 * The tiny model learned its tools from the traces, so act prompts leave the tool schemas out
 * (they would triple the prompt); everything else passes through unchanged.
 */
export function withoutToolSchemas(model: ChatModel): ChatModel {
  return {
    name: model.name,
    chat(request: ChatRequest, options) {
      const { tools: _tools, ...rest } = request;
      return model.chat(rest, options);
    },
  };
}
