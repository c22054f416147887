import { describe, expect, it } from "vitest";
import {
  fromOpenAIToolCalls,
  toOpenAIToolCalls,
  validateToolCall,
  type ToolSchema,
} from "../../../src/core/index.js";

const tools: ToolSchema[] = [
  {
    name: "transfer",
    description: "Move money between accounts",
    parameters: {
      type: "object",
      properties: {
        from: { type: "string" },
        to: { type: "string" },
        amount: { type: "number", minimum: 0 },
      },
      required: ["from", "to", "amount"],
      additionalProperties: false,
    },
  },
];

describe("validateToolCall", () => {
  it("accepts a call that matches the schema", () => {
    expect(
      validateToolCall({ id: "1", name: "transfer", arguments: { from: "a", to: "b", amount: 3 } }, tools),
    ).toBe(undefined);
  });

  it("rejects an unknown tool and names the available ones", () => {
    const e = validateToolCall({ id: "1", name: "steal", arguments: {} }, tools);
    expect(e?.code).toBe("TOOL_NOT_AVAILABLE");
    expect(e?.message).toContain("transfer");
  });

  it("lists every schema error", () => {
    const e = validateToolCall(
      { id: "1", name: "transfer", arguments: { from: 1, amount: -2, extra: true } },
      tools,
    );
    expect(e?.code).toBe("INVALID_PARAMETERS");
    const errors = (e?.details as { errors: string[] }).errors;
    expect(errors).toEqual(
      expect.arrayContaining([
        "arguments must have required property 'to'",
        "arguments.from must be string",
        "arguments.amount must be >= 0",
        'arguments: unexpected property "extra"',
      ]),
    );
  });

  it("rejects OpenAI tool calls whose arguments are not JSON", () => {
    const [call] = fromOpenAIToolCalls([
      { id: "x", type: "function", function: { name: "transfer", arguments: "{from: a" } },
    ]);
    expect(call!.arguments).toEqual({ __raw: "{from: a" });
    expect(validateToolCall(call!, tools)?.code).toBe("INVALID_PARAMETERS");
  });

  it("converts OpenAI tool calls both ways", () => {
    const calls = [{ id: "c1", name: "transfer", arguments: { from: "a", to: "b", amount: 1 } }];
    expect(fromOpenAIToolCalls(toOpenAIToolCalls(calls))).toEqual(calls);
    expect(
      fromOpenAIToolCalls([{ id: "e", type: "function", function: { name: "f", arguments: "" } }]),
    ).toEqual([{ id: "e", name: "f", arguments: {} }]);
  });
});
