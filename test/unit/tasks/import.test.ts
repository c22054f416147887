import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  attachChecklists,
  importMcpRecording,
  importOpenAITranscripts,
  inferTools,
  PLACEHOLDER_TURN,
} from "../../../src/tasks/index.js";

const root = join(import.meta.dirname, "../../..");
const transcripts = readFileSync(join(root, "examples/tasks/memory-transcripts.jsonl"), "utf8");
const opts = { domain: "memory", idPrefix: "memory" };

describe("importOpenAITranscripts", () => {
  it("one task per session: system, user turns, examples paired by id, the conversation as a trace", () => {
    const r = importOpenAITranscripts(transcripts, "t.jsonl", opts);
    expect(r.tasks.map((t) => t.id)).toEqual(["memory-0001", "memory-0002"]);
    const [a, b] = r.tasks;
    expect(a!.system).toMatch(/knowledge graph/);
    expect(b!.user_turns).toEqual([
      "Please remember Grace, she is an engineer.",
      "Also note that Grace works at Acme.",
    ]);
    expect(b!.examples.map((e) => e.name)).toEqual(["create_entities", "add_observations"]);
    // JSON results are kept as values, so the rehearse role learns the real shape.
    expect(b!.examples[1]!.result).toEqual([{ entityName: "Grace", addedObservations: ["works at Acme"] }]);
    expect(b!.traces[0]!.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    // Session 2 carries its tools; session 1 has none, so its schemas are inferred and it says so.
    expect(b!.tools.map((t) => t.name)).toContain("read_graph");
    expect(r.inferredTools).toEqual(["memory-0001"]);
    expect(a!.tools.map((t) => t.name)).toEqual(["create_entities"]);
    expect(a!.checklists).toEqual([]);
  });

  it("pairs results without ids in order, parses string arguments, and names bad lines", () => {
    const row = {
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { type: "function", function: { name: "f", arguments: '{"a":1}' } },
            { type: "function", function: { name: "g", arguments: "" } },
          ],
        },
        { role: "tool", content: "first" },
        { role: "tool", content: '{"second":true}' },
      ],
    };
    const [t] = importOpenAITranscripts(JSON.stringify(row), "x", opts).tasks;
    expect(t!.user_turns).toEqual(["hi"]);
    expect(t!.examples).toEqual([
      { name: "f", arguments: { a: 1 }, result: "first" },
      { name: "g", arguments: {}, result: { second: true } },
    ]);
    const bad = {
      messages: [{ role: "assistant", tool_calls: [{ function: { name: "f", arguments: "{x" } }] }],
    };
    expect(() => importOpenAITranscripts(`\n${JSON.stringify(bad)}`, "x", opts)).toThrow(
      /x:2 messages\.0: tool call f: arguments are not JSON/,
    );
    expect(() => importOpenAITranscripts("{}", "x", opts)).toThrow(
      /x:1: expected \{messages, tools\?\} or a logged \{request/,
    );
  });
});

describe("importOpenAITranscripts: logged request/response pairs", () => {
  it("the request's messages and the response's first choice make the session", () => {
    const row = {
      request: {
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "weather in Oslo?" },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "a", type: "function", function: { name: "weather", arguments: '{"city":"Oslo"}' } },
            ],
          },
          { role: "tool", tool_call_id: "a", content: '{"temp": 3}' },
        ],
        tools: [{ type: "function", function: { name: "weather", parameters: { type: "object" } } }],
      },
      response: { body: { choices: [{ message: { role: "assistant", content: "3 degrees." } }] } },
    };
    const [t] = importOpenAITranscripts(JSON.stringify(row), "log", opts).tasks;
    expect(t!.system).toBe("be brief");
    expect(t!.examples).toEqual([{ name: "weather", arguments: { city: "Oslo" }, result: { temp: 3 } }]);
    expect(t!.traces[0]!.messages.at(-1)).toEqual({ role: "assistant", content: "3 degrees." });
    expect(t!.tools.map((x) => x.name)).toEqual(["weather"]);
  });
});

describe("importMcpRecording", () => {
  it("one task whose examples are the recorded calls, with a placeholder turn unless given", () => {
    const rec = [
      { name: "search_nodes", arguments: { query: "Ada" }, result: { entities: [] } },
      { name: "read_graph", arguments: {}, result: "Error: boom" },
    ]
      .map((e) => JSON.stringify(e))
      .join("\n");
    const r = importMcpRecording(rec, "rec.jsonl", opts);
    expect(r.tasks[0]!.user_turns).toEqual([PLACEHOLDER_TURN]);
    expect(r.placeholderTurns).toEqual(["memory-0001"]);
    expect(r.tasks[0]!.examples).toHaveLength(2);
    const given = importMcpRecording(rec, "rec.jsonl", { ...opts, userTurns: ["Find Ada"] });
    expect(given.tasks[0]!.user_turns).toEqual(["Find Ada"]);
    expect(given.placeholderTurns).toEqual([]);
    expect(() => importMcpRecording('{"name": "x"}', "rec.jsonl", opts)).toThrow(
      /rec\.jsonl:1: expected a recorded call/,
    );
  });
});

describe("attachChecklists", () => {
  const std = [[[{ question: "q", rule: { reply_contains: ["x"] } }]]];
  it("by id, a line without id for the rest, unknown ids refused", () => {
    const { tasks } = importOpenAITranscripts(transcripts, "t", opts);
    const text = [{ id: "memory-0002", checklists: std }].map((r) => JSON.stringify(r)).join("\n");
    expect(attachChecklists(tasks, text, "c").missing).toEqual(["memory-0001"]);
    expect(tasks[1]!.checklists[0]![0]![0]!.question).toBe("q");
    expect(attachChecklists(tasks, JSON.stringify({ checklists: std }), "c").missing).toEqual([]);
    expect(() => attachChecklists(tasks, JSON.stringify({ id: "nope", checklists: std }), "c")).toThrow(
      /unknown task ids: nope/,
    );
    expect(() => attachChecklists(tasks, JSON.stringify({ checklist: std }), "c")).toThrow(/field checklist/);
  });
});

describe("inferTools", () => {
  it("properties of the types seen, required when every call had them", () => {
    const [t] = inferTools([
      { name: "f", arguments: { a: 1, b: "x" } },
      { name: "f", arguments: { a: 1.5 } },
    ]);
    expect(t!.parameters).toEqual({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "string" } },
      required: ["a"],
    });
  });
});
