import { describe, expect, it } from "vitest";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { checkTask } from "../../../src/tasks/index.js";

const tools = [
  {
    name: "create_note",
    description: "",
    parameters: {
      type: "object",
      properties: { title: { type: "string" }, pinned: { type: "boolean" } },
      required: ["title"],
    },
  },
];
const task = (over: Record<string, unknown>): Task =>
  TaskZ.parse({ id: "t", domain: "d", tools, user_turns: ["make a note"], ...over });

describe("checkTask", () => {
  it("resolves rules against the tools: unknown tool, unknown argument, wrong type", () => {
    const t = task({
      checklists: [
        [
          [
            { question: "a", rule: { call: "create_notes" } },
            { question: "b", rule: { call: "create_note", args: { titel: "x" } } },
            { question: "c", rule: { forbid: "create_note", args: { pinned: "yes" } } },
            { question: "d", rule: { call: "create_note", args: { title: "x" } } },
          ],
        ],
      ],
    });
    const r = checkTask(t);
    expect(r.errors).toHaveLength(3);
    expect(r.errors[0]).toMatch(
      /checklists\.0\.0\.0\.rule: tool "create_notes" is not one of the task's tools/,
    );
    expect(r.errors[1]).toMatch(/checklists\.0\.0\.1\.rule: args\.titel is not a parameter of create_note/);
    expect(r.errors[2]).toMatch(
      /checklists\.0\.0\.2\.rule: invalid arguments for create_note: arguments\.pinned must be boolean/,
    );
  });

  it("a rule's args need not name the required parameters", () => {
    const t = task({
      checklists: [[[{ question: "q", rule: { call: "create_note", args: { pinned: true } } }]]],
    });
    expect(checkTask(t).errors).toEqual([]);
  });

  it("says what the task can be used for", () => {
    const bare = checkTask(task({}));
    expect(bare.uses).toEqual({
      sft_act: 0,
      sft_rehearse: 0,
      rehearsal_rl: false,
      real_env: null,
      judge_needed: false,
    });
    expect(bare.warnings.join("\n")).toMatch(/every episode's reward is 0/);
    const full = checkTask(
      task({
        checklists: [[[{ question: "judged" }, { question: "ruled", rule: { reply_contains: ["ok"] } }]]],
        examples: [{ name: "create_note", arguments: { title: "a" }, result: { id: 1 } }],
        traces: [
          {
            messages: [
              { role: "user", content: "make a note" },
              { role: "assistant", tool_calls: [{ name: "create_note", arguments: { title: "b" } }] },
              { role: "tool", content: '{"id": 2}' },
              { role: "assistant", content: "ok" },
            ],
          },
        ],
        env: { kind: "mcp", command: "node", args: ["server.js"] },
      }),
    );
    // The traced call and the example (a different call) both teach the rehearse role.
    expect(full.uses).toEqual({
      sft_act: 1,
      sft_rehearse: 2,
      rehearsal_rl: true,
      real_env: "mcp",
      judge_needed: true,
    });
    expect(full.errors).toEqual([]);
  });

  it("warns on checklists that do not cover the user turns and on invalid recorded calls", () => {
    const r = checkTask(
      task({
        user_turns: ["a", "b"],
        checklists: [[[{ question: "q", rule: { reply_contains: ["x"] } }]]],
        examples: [{ name: "create_note", arguments: {}, result: {} }],
      }),
    );
    expect(r.warnings).toEqual([
      "checklists.0: 1 turns of standards for 2 user turns",
      expect.stringMatching(/^examples\.0: .*title/),
    ]);
  });

  it("a tool message that answers no call is an error", () => {
    const r = checkTask(task({ traces: [{ messages: [{ role: "tool", content: "{}" }] }] }));
    expect(r.errors).toEqual(["traces.0: messages.0: tool message answers no pending call"]);
  });
});
