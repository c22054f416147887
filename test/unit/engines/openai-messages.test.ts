import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import {
  fromOpenAIToolCalls,
  parseToolArguments,
  toOpenAIMessages,
  toOpenAITools,
} from "../../../src/engines/index.js";

describe("toOpenAIMessages", () => {
  it("maps every role, tool calls to JSON-string arguments and tool results to tool_call_id", () => {
    const messages: Message[] = [
      { role: "system", content: "be brief" },
      { role: "user", content: "cancel #W1" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "cancel_order", arguments: { order_id: "#W1", reason: "no longer needed" } },
        ],
      },
      { role: "tool", content: '{"status":"cancelled"}', toolCallId: "c1", name: "cancel_order" },
      { role: "assistant", content: "Done." },
    ];
    const out = toOpenAIMessages(messages);
    expect(out[0]).toEqual({ role: "system", content: "be brief" });
    expect(out[1]).toEqual({ role: "user", content: "cancel #W1" });
    expect(out[2]).toEqual({
      role: "assistant",
      content: "",
      tool_calls: [
        {
          id: "c1",
          type: "function",
          function: { name: "cancel_order", arguments: '{"order_id":"#W1","reason":"no longer needed"}' },
        },
      ],
    });
    expect(out[3]).toEqual({
      role: "tool",
      content: '{"status":"cancelled"}',
      tool_call_id: "c1",
      name: "cancel_order",
    });
    expect(out[4]).toEqual({ role: "assistant", content: "Done." });
  });

  it("sends raw (unparseable) arguments back verbatim", () => {
    const out = toOpenAIMessages([
      { role: "assistant", content: "", toolCalls: [{ id: "x", name: "f", arguments: { __raw: "{oops" } }] },
    ]);
    expect(out[0]).toMatchObject({ tool_calls: [{ function: { arguments: "{oops" } }] });
  });
});

describe("tool schemas and tool calls", () => {
  it("wraps tools as OpenAI function tools", () => {
    const params = { type: "object", properties: { q: { type: "string" } }, required: ["q"] };
    expect(toOpenAITools([{ name: "search", description: "find", parameters: params }])).toEqual([
      { type: "function", function: { name: "search", description: "find", parameters: params } },
    ]);
  });

  it("parses JSON arguments and keeps bad JSON raw instead of throwing", () => {
    expect(parseToolArguments('{"a":1,"b":[2]}')).toEqual({ a: 1, b: [2] });
    expect(parseToolArguments("{not json")).toEqual({ __raw: "{not json" });
    // valid JSON that is not an object is not a valid argument set either
    expect(parseToolArguments("[1,2]")).toEqual({ __raw: "[1,2]" });
    expect(parseToolArguments("null")).toEqual({ __raw: "null" });
  });

  it("reads OpenAI tool_calls back into ToolCalls", () => {
    expect(
      fromOpenAIToolCalls([
        { id: "a", type: "function", function: { name: "f", arguments: '{"x":1}' } },
        { id: "b", type: "function", function: { name: "g", arguments: "{" } },
      ]),
    ).toEqual([
      { id: "a", name: "f", arguments: { x: 1 } },
      { id: "b", name: "g", arguments: { __raw: "{" } },
    ]);
    expect(fromOpenAIToolCalls(undefined)).toBeUndefined();
    expect(fromOpenAIToolCalls([])).toBeUndefined();
  });
});
