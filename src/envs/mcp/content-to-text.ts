import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

type ContentBlock = CallToolResult["content"][number];

/**
 * The content of a `tools/call` result as the one string an agent sees. Text blocks are joined
 * with newlines; any other block (image, audio, resource, resource link) is described as one line
 * of JSON, with base64 payloads replaced by their length so a screenshot cannot flood the context.
 * A result with no content blocks falls back to its `structuredContent` as JSON.
 */
export function contentToText(result: Pick<CallToolResult, "content" | "structuredContent">): string {
  const blocks = result.content ?? [];
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    return JSON.stringify(result.structuredContent);
  }
  return blocks.map(blockToText).join("\n");
}

function blockToText(block: ContentBlock): string {
  if (block.type === "text") return block.text;
  if (block.type === "image" || block.type === "audio") {
    return JSON.stringify({ type: block.type, mimeType: block.mimeType, base64Chars: block.data.length });
  }
  if (block.type === "resource" && "blob" in block.resource) {
    const { blob, ...rest } = block.resource;
    return JSON.stringify({ type: "resource", resource: { ...rest, base64Chars: blob.length } });
  }
  return JSON.stringify(block);
}
