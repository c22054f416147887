import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolSchema } from "../../core/tools.js";

/**
 * An MCP tool (from `tools/list`) as an envace tool schema (OpenAI function shape). MCP's
 * `inputSchema` is already a JSON schema of the arguments object, so it becomes `parameters` as is;
 * a missing description becomes the tool's title (or "") because ToolSchema requires a string.
 */
export function toToolSchema(tool: Tool): ToolSchema {
  return {
    name: tool.name,
    description: tool.description ?? tool.title ?? "",
    parameters: { ...tool.inputSchema } as Record<string, unknown>,
  };
}
