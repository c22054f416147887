import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import {
  canonicalHash,
  contentToText,
  mapCallError,
  mapErrorResult,
  toToolSchema,
} from "../../../src/envs/mcp/index.js";
import { ToolSchemaZ } from "../../../src/core/task.js";

describe("toToolSchema", () => {
  it("maps name, description and inputSchema to an envace tool schema", () => {
    const schema = toToolSchema({
      name: "read_file",
      description: "Reads a file.",
      inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    });
    expect(schema).toEqual({
      name: "read_file",
      description: "Reads a file.",
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    });
    expect(ToolSchemaZ.safeParse(schema).success).toBe(true);
  });

  it("uses the title, then an empty string, when there is no description", () => {
    expect(toToolSchema({ name: "a", title: "Tool A", inputSchema: { type: "object" } }).description).toBe(
      "Tool A",
    );
    expect(toToolSchema({ name: "b", inputSchema: { type: "object" } }).description).toBe("");
  });
});

describe("contentToText", () => {
  it("joins text blocks with newlines", () => {
    expect(
      contentToText({
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      }),
    ).toBe("a\nb");
  });

  it("describes other blocks as JSON without their base64 payload", () => {
    const text = contentToText({
      content: [
        { type: "image", data: "QUJDRA==", mimeType: "image/png" },
        {
          type: "resource",
          resource: { uri: "file:///x", blob: "QUJD", mimeType: "application/octet-stream" },
        },
        { type: "resource_link", uri: "file:///y", name: "y" },
      ],
    });
    const lines = text.split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ type: "image", mimeType: "image/png", base64Chars: 8 });
    expect(lines[1]).toEqual({
      type: "resource",
      resource: { uri: "file:///x", mimeType: "application/octet-stream", base64Chars: 4 },
    });
    expect(lines[2]).toEqual({ type: "resource_link", uri: "file:///y", name: "y" });
  });

  it("falls back to structuredContent when there are no blocks", () => {
    expect(contentToText({ content: [], structuredContent: { x: 1 } })).toBe('{"x":1}');
  });
});

describe("mapCallError", () => {
  it("maps an unknown tool to TOOL_NOT_AVAILABLE and strips the SDK prefix", () => {
    const m = mapCallError(new McpError(ErrorCode.InvalidParams, "Tool nope not found"), "nope");
    expect(m.error.code).toBe("TOOL_NOT_AVAILABLE");
    expect(m.error.message).toBe("Tool nope not found");
    expect(m.connectionLost).toBe(false);
  });

  it("maps other invalid params to INVALID_PARAMETERS", () => {
    const m = mapCallError(new McpError(ErrorCode.InvalidParams, "path: expected string"), "read");
    expect(m.error.code).toBe("INVALID_PARAMETERS");
  });

  it("maps a JSON-RPC internal error to TOOL_EXECUTION_ERROR", () => {
    const m = mapCallError(new McpError(ErrorCode.InternalError, "boom"), "t");
    expect(m.error.code).toBe("TOOL_EXECUTION_ERROR");
    expect(m.error.message).toBe("boom");
  });

  it("maps a closed connection or a transport failure to MCP_ERROR and marks the connection lost", () => {
    const closed = mapCallError(new McpError(ErrorCode.ConnectionClosed, "Connection closed"), "t");
    expect(closed.error.code).toBe("MCP_ERROR");
    expect(closed.connectionLost).toBe(true);
    const transport = mapCallError(new Error("Not connected"), "t");
    expect(transport.error.code).toBe("MCP_ERROR");
    expect(transport.connectionLost).toBe(true);
  });

  it("maps a timeout to MCP_ERROR without dropping the connection", () => {
    const m = mapCallError(new McpError(ErrorCode.RequestTimeout, "Request timed out"), "t");
    expect(m.error.code).toBe("MCP_ERROR");
    expect(m.connectionLost).toBe(false);
  });
});

describe("canonicalHash", () => {
  it("ignores key order and changes with any value", () => {
    expect(canonicalHash({ a: 1, b: { c: 2, d: [1, 2] } })).toBe(
      canonicalHash({ b: { d: [1, 2], c: 2 }, a: 1 }),
    );
    expect(canonicalHash({ a: 1 })).not.toBe(canonicalHash({ a: 2 }));
  });
});

describe("mapErrorResult", () => {
  it("recognises the SDK's wordings for bad arguments and unknown tools", () => {
    expect(mapErrorResult("Input validation error: Invalid arguments for tool x: …").code).toBe(
      "INVALID_PARAMETERS",
    );
    expect(mapErrorResult("Tool x not found").code).toBe("TOOL_NOT_AVAILABLE");
    expect(mapErrorResult("Error: ENOENT: no such file").code).toBe("TOOL_EXECUTION_ERROR");
  });
});
