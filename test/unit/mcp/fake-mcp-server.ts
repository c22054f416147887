import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

/**
 * A small MCP server built with the SDK, for in-memory and HTTP tests. `onCrash` is called by the
 * `crash` tool, which never answers: the test closes the transport there to simulate a server
 * that exits in the middle of a call.
 */
export function makeFakeServer(onCrash: () => void = () => undefined): McpServer {
  const server = new McpServer({ name: "fake", version: "1.0.0" });
  let counter = 0;
  server.registerTool(
    "echo",
    { description: "Echoes the text.", inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  server.registerTool("count", { description: "Increments and returns a counter." }, async () => {
    counter += 1;
    return { content: [{ type: "text", text: JSON.stringify({ count: counter }) }] };
  });
  server.registerTool("fail", { description: "Always fails." }, async () => {
    throw new Error("the fail tool failed");
  });
  server.registerTool("picture", { description: "Returns text and an image." }, async () => ({
    content: [
      { type: "text", text: "a red dot:" },
      { type: "image", data: "aGVsbG8=", mimeType: "image/png" },
    ],
  }));
  server.registerTool("crash", { description: "Exits mid-call." }, async () => {
    onCrash();
    return new Promise<never>(() => undefined);
  });
  return server;
}
