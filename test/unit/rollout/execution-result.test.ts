import { describe, expect, it } from "vitest";
import {
  buildRehearsalPrompt,
  parseExecutionResult,
  REHEARSAL_SYSTEM_FULL,
} from "../../../src/rollout/index.js";
import { readRehearsalCall } from "../../../src/rollout/rehearsal-prompt.js";
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
  it("full: the reference's system instruction and user prompt, byte for byte", () => {
    const [sys, user] = buildRehearsalPrompt({
      ...input,
      task: { ...task, tools: [task.tools[0]!] },
    });
    expect(sys!.content).toBe(REHEARSAL_SYSTEM_FULL);
    expect(sys!.content.startsWith("You are a precise tool simulator.")).toBe(true);
    // what simulate_core/_builders.py build_validation_user_prompt writes for this call (no /think)
    const tool = [
      "{",
      '"name": "get_order",',
      '"description": "Look up an order",',
      '"parameters": {',
      '"type": "object",',
      '"properties": {',
      '"order_id": {',
      '"type": "string"',
      "}",
      "},",
      '"required": [',
      '"order_id"',
      "],",
      '"additionalProperties": false',
      "}",
      "}",
    ].join("\n");
    const schema = tool.slice(
      tool.indexOf('"parameters": ') + '"parameters": '.length,
      tool.lastIndexOf("\n}"),
    );
    const args = '{\n"order_id": "A1"\n}';
    const expected = [
      `Candidate tools (whitelist for this sample):\n[\n${tool}\n]`,
      [
        "Previous tool calls and results (few-shot):",
        `Tool name:\nget_order\nTool arguments:\n${args}\nTool execution result:\n{\n"status": "pending"\n}\n`,
      ].join("\n"),
      "Current conversation history:\nUser: Where is order A1?",
      `RL model's latest response:\n${input.rawActMessage}`,
      `Current tool to simulate:\n- name: get_order\n- input schema (JSON Schema):\n${schema}\n- arguments (JSON, parsed from caller's tool_call):\n${args}`,
    ].join("\n\n");
    expect(user!.content).toBe(expected);
    const think = buildRehearsalPrompt({ ...input, think: true })[1]!.content;
    expect(think.endsWith("\n\n/think")).toBe(true);
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
  it("compact shows the caller's tenant line first, and nothing else of its system prompt", () => {
    const tenanted = { ...task, system: "shop agent. cancel only pending orders.\ntenant: w3" };
    const call = { id: "c", name: "cancel_order", arguments: { order_id: "A1" } };
    const [, user] = buildRehearsalPrompt({ ...input, task: tenanted, call, variant: "compact" });
    expect(user!.content).toBe('tenant: w3\ncancel_order {"order_id":"A1"} ->');
    // the current call is still the last line, as stand-in rehearsers read it
    expect(readRehearsalCall(user!.content)).toEqual({ name: "cancel_order", arguments: { order_id: "A1" } });
    const [, full] = buildRehearsalPrompt({ ...input, task: tenanted, call });
    expect(full!.content).not.toContain("tenant:");
  });
});
