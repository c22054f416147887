import { describe, expect, it } from "vitest";
import { parseTasks } from "../../../src/rollout/index.js";

const ok = { id: "a", domain: "d", tools: [], user_turns: ["hi"] };
const line = (t: unknown) => JSON.stringify(t);

describe("task schema: unknown fields are errors naming the field", () => {
  it("a misspelt top-level field", () => {
    expect(() => parseTasks(line({ ...ok, checklist: [] }), "t.jsonl")).toThrow(
      /t\.jsonl:1: field checklist: unknown field/,
    );
  });

  it("a misspelt field inside a standard, with its path", () => {
    const task = { ...ok, checklists: [[[{ question: "q", wieght: 2 }]]] };
    expect(() => parseTasks(line(task), "t")).toThrow(/field checklists\.0\.0\.0\.wieght: unknown field/);
  });

  it("accepts the reference's standard fields", () => {
    const std = { question: "q", focus_on: "the reply", reference: "Done.", required_for_next_turn: true };
    const [t] = parseTasks(line({ ...ok, checklists: [[[std]]] }));
    expect(t!.checklists[0]![0]![0]).toMatchObject(std);
  });

  it("an mcp env needs exactly one of command or url", () => {
    expect(
      parseTasks(line({ ...ok, env: { kind: "mcp", command: "node", args: ["s.js"] } }))[0]!.env,
    ).toEqual({ kind: "mcp", command: "node", args: ["s.js"] });
    expect(parseTasks(line({ ...ok, env: { kind: "mcp", url: "http://127.0.0.1:1/mcp" } }))[0]!.env).toEqual({
      kind: "mcp",
      url: "http://127.0.0.1:1/mcp",
    });
    expect(() => parseTasks(line({ ...ok, env: { kind: "mcp" } }), "t")).toThrow(/exactly one of "command"/);
    expect(() =>
      parseTasks(line({ ...ok, env: { kind: "mcp", command: "x", url: "http://127.0.0.1/" } }), "t"),
    ).toThrow(/exactly one of "command"/);
  });

  it("an unknown env kind and a stray env field are refused", () => {
    expect(() => parseTasks(line({ ...ok, env: { kind: "docker" } }), "t")).toThrow(/field env\.kind/);
    expect(() => parseTasks(line({ ...ok, env: { kind: "mcp", command: "x", argv: [] } }), "t")).toThrow(
      /field env\.argv: unknown field/,
    );
  });

  it("traces hold recorded conversations", () => {
    const trace = {
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "", tool_calls: [{ id: "c1", name: "f", arguments: { a: 1 } }] },
        { role: "tool", tool_call_id: "c1", content: '{"ok":true}' },
        { role: "assistant", content: "done" },
      ],
    };
    const [t] = parseTasks(line({ ...ok, traces: [trace] }));
    expect(t!.traces[0]!.messages).toHaveLength(4);
    expect(() =>
      parseTasks(line({ ...ok, traces: [{ messages: [{ role: "system", content: "x" }] }] }), "t"),
    ).toThrow(/field traces\.0\.messages\.0\.role/);
  });
});
