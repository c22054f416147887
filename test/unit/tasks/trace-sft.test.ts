import { describe, expect, it } from "vitest";
import { TaskZ } from "../../../src/core/task.js";
import { traceSftExamples } from "../../../src/train/trace-sft.js";

const task = TaskZ.parse({
  id: "t",
  domain: "notes",
  system: "You keep notes.",
  tools: [{ name: "add", description: "add a note", parameters: { type: "object" } }],
  user_turns: ["add milk", "and eggs"],
  examples: [
    { name: "add", arguments: { text: "milk" }, result: { id: 1 } },
    { name: "add", arguments: { text: "bread" }, result: { id: 9 } },
  ],
  traces: [
    {
      messages: [
        { role: "user", content: "add milk" },
        { role: "assistant", tool_calls: [{ id: "c1", name: "add", arguments: { text: "milk" } }] },
        { role: "tool", tool_call_id: "c1", content: '{"id": 1}' },
        { role: "assistant", content: "Added." },
        { role: "user", content: "and eggs" },
        { role: "assistant", tool_calls: [{ name: "add", arguments: { text: "eggs" } }] },
        { role: "tool", content: '{"id": 2}' },
        { role: "assistant", content: "Added eggs." },
      ],
    },
  ],
});

describe("traceSftExamples", () => {
  it("act: the recorded conversation after the system prompt, every assistant message a target", () => {
    const { act } = traceSftExamples([task], { roles: ["act"], variant: "full" });
    expect(act).toHaveLength(1);
    const ex = act[0]!;
    expect(ex.messages[0]).toEqual({ role: "system", content: "You keep notes." });
    expect(ex.targets).toEqual([2, 4, 6, 8]);
    expect(ex.targets.every((k) => ex.messages[k]!.role === "assistant")).toBe(true);
    expect(ex.messages[2]!.toolCalls).toEqual([{ id: "c1", name: "add", arguments: { text: "milk" } }]);
    expect(ex.tools).toEqual(task.tools);
  });

  it("rehearse: each traced call's prompt in its context, answered with the real result; uncovered examples too", () => {
    const { act, rehearse } = traceSftExamples([task], { roles: ["rehearse"], variant: "full" });
    expect(act).toEqual([]);
    // milk and eggs from the trace; the milk example is the same call, bread is new.
    expect(rehearse).toHaveLength(3);
    const answers = rehearse.map((ex) => ex.messages[ex.targets[0]!]!.content);
    expect(answers).toEqual([
      '<execution_result>\n{"id":1}\n</execution_result>',
      '<execution_result>\n{"id":2}\n</execution_result>',
      '<execution_result>\n{"id":9}\n</execution_result>',
    ]);
    const prompt = (i: number) => rehearse[i]!.messages.map((m) => m.content).join("\n");
    // The eggs call was made after the first turn: its history holds "add milk" and "Added.".
    expect(prompt(1)).toMatch(/Added\./);
    expect(prompt(1)).toMatch(/"text":\s*"eggs"/);
    expect(prompt(0)).not.toMatch(/Added\./);
    expect(prompt(2)).toMatch(/"text":\s*"bread"/);
  });
});
