import { describe, expect, it } from "vitest";
import { parseAssistantText, renderAssistantText, renderToolCalls } from "../../../src/core/index.js";

describe("parseAssistantText", () => {
  it("parses several calls and keeps the reply text", () => {
    const text =
      'Let me check.\n<tool_call>{"name": "get_order", "arguments": {"order_id": "o1"}}</tool_call>\n' +
      '<tool_call>\n{"name":"get_user","arguments":{"user_id":"u2"}}\n</tool_call>';
    const p = parseAssistantText(text);
    expect(p.errors).toEqual([]);
    expect(p.content).toBe("Let me check.");
    expect(p.toolCalls).toEqual([
      { id: "call_0", name: "get_order", arguments: { order_id: "o1" } },
      { id: "call_1", name: "get_user", arguments: { user_id: "u2" } },
    ]);
  });

  it("ignores <think> blocks, including calls written inside them", () => {
    const p = parseAssistantText(
      '<think>maybe <tool_call>{"name":"x","arguments":{}}</tool_call></think>Done, your order is cancelled.',
    );
    expect(p.toolCalls).toEqual([]);
    expect(p.errors).toEqual([]);
    expect(p.content).toBe("Done, your order is cancelled.");
  });

  it("accepts arguments given as a JSON string and missing arguments", () => {
    const p = parseAssistantText(
      '<tool_call>{"name":"a","arguments":"{\\"k\\": 1}"}</tool_call><tool_call>{"name":"b"}</tool_call>',
    );
    expect(p.toolCalls.map((c) => c.arguments)).toEqual([{ k: 1 }, {}]);
  });

  it.each([
    ["<tool_call>{not json}</tool_call>", /not valid JSON/],
    ['<tool_call>["a"]</tool_call>', /must be a JSON object/],
    ['<tool_call>{"arguments":{}}</tool_call>', /string "name"/],
    ['<tool_call>{"name":"a","arguments":[1]}</tool_call>', /must be a JSON object/],
    ['<tool_call>{"name":"a","arguments":{}}', /unterminated/],
    ["reply </tool_call>", /stray/],
  ])("reports INVALID_TOOL_CALL_FORMAT for %s", (text, message) => {
    const p = parseAssistantText(text);
    expect(p.toolCalls).toEqual([]);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]!.code).toBe("INVALID_TOOL_CALL_FORMAT");
    expect(p.errors[0]!.message).toMatch(message);
  });

  it("keeps valid calls beside a malformed one", () => {
    const p = parseAssistantText(
      '<tool_call>{"name":"a","arguments":{}}</tool_call><tool_call>oops</tool_call>',
    );
    expect(p.toolCalls.map((c) => c.name)).toEqual(["a"]);
    expect(p.errors.map((e) => e.code)).toEqual(["INVALID_TOOL_CALL_FORMAT"]);
  });

  it("round-trips through renderAssistantText", () => {
    const calls = [{ id: "call_0", name: "f", arguments: { a: [1, 2], b: { c: "d" } } }];
    const text = renderAssistantText("Checking", calls);
    expect(text).toBe('Checking\n<tool_call>{"name":"f","arguments":{"a":[1,2],"b":{"c":"d"}}}</tool_call>');
    const p = parseAssistantText(text);
    expect(p.content).toBe("Checking");
    expect(p.toolCalls).toEqual(calls);
    expect(renderToolCalls([])).toBe("");
  });
});
