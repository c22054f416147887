import { describe, expect, it } from "vitest";
import {
  buildRehearsalPrompt,
  parseExecutionResult,
  REHEARSAL_SYSTEM_FULL,
} from "../../../src/rollout/index.js";
import { orderTask } from "./fixtures.js";

describe("parseExecutionResult", () => {
  it("accepts objects and arrays, strips think, re-serialises", () => {
    expect(
      parseExecutionResult('<think>x</think>\n<execution_result>\n{"a": 1}\n</execution_result>'),
    ).toMatchObject({ ok: true, content: '{"a":1}' });
    expect(parseExecutionResult("<execution_result>\n[]\n</execution_result>")).toMatchObject({
      ok: true,
      content: "[]",
    });
  });
  it("reads an error_tool_call verdict", () => {
    const r = parseExecutionResult(
      '<execution_result>\n{"error_tool_call":{"code":"INVALID_PARAMETERS","message":"bad"}}\n</execution_result>',
    );
    expect(r).toMatchObject({ ok: true, verdict: { code: "INVALID_PARAMETERS", message: "bad" } });
  });
  it.each([
    ["   ", "EMPTY_SIMULATOR_OUTPUT"],
    ["result: {}", "NO_EXECUTION_RESULT_TAG_FOUND"],
    ['<execution_result>\n{"a":1}', "EXECUTION_RESULT_TAG_MALFORMED"],
    ["<execution_result>\n{'a':1}\n</execution_result>", "SIMULATOR_JSON_DECODE_ERROR"],
    ["<execution_result>\nnull\n</execution_result>", "INVALID_EXECUTION_RESULT_TYPE"],
    ["<execution_result>\n42\n</execution_result>", "INVALID_EXECUTION_RESULT_TYPE"],
  ])("%j → %s", (text, code) => {
    const r = parseExecutionResult(text);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.code).toBe(code);
      expect(JSON.parse(r.content).error_tool_call.code).toBe(code);
    }
  });
});

describe("buildRehearsalPrompt", () => {
  const task = orderTask();
  const input = {
    task,
    history: [{ role: "user" as const, content: "Where is order A1?" }],
    rawActMessage: '<tool_call>{"name":"get_order","arguments":{"order_id":"A1"}}</tool_call>',
    call: { id: "c", name: "get_order", arguments: { order_id: "A1" } },
  };
  it("full: system contract, then tools, few-shot, history, act message, current call in order", () => {
    const [sys, user] = buildRehearsalPrompt(input);
    expect(sys!.content).toBe(REHEARSAL_SYSTEM_FULL);
    const order = [
      "Candidate tools",
      "Recorded calls and results",
      "Current conversation history",
      "The agent's latest message",
      "Current tool to simulate",
    ];
    const at = order.map((s) => user!.content.indexOf(s));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(user!.content).toContain('"required":["order_id"]');
  });
  it("compact is short and holds only this tool's examples", () => {
    const [sys, user] = buildRehearsalPrompt({
      ...input,
      call: { id: "c", name: "cancel_order", arguments: { order_id: "A1" } },
      variant: "compact",
    });
    expect(user!.content).toBe('cancel_order {"order_id":"A1"} ->');
    expect((sys!.content + user!.content).split(/\s+/).length).toBeLessThan(30);
  });
});
