import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import { TaskZ } from "../../../src/core/task.js";
import { llmJudge, parseVerdict, scoreEpisode, VERDICT_SCHEMA } from "../../../src/reward/index.js";

const task = TaskZ.parse({
  id: "t",
  domain: "d",
  tools: [],
  user_turns: ["hi"],
  checklists: [
    [
      [
        { question: "polite?", pass_condition: "greets" },
        { question: "rule", rule: { reply_contains: ["hello"] } },
      ],
    ],
  ],
});
const turns = [
  {
    before: [],
    messages: [
      { role: "user" as const, content: "hi" },
      { role: "assistant" as const, content: "hello" },
    ],
    calls: [],
    replies: ["hello"],
  },
];

function model(reply: (i: number) => string | Error): ChatModel & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    name: "judge",
    requests,
    async chat(req) {
      const r = reply(requests.push(req) - 1);
      if (r instanceof Error) throw r;
      return { samples: [{ text: r, finishReason: "stop" }] };
    },
  };
}

describe("parseVerdict", () => {
  it.each([
    ['{"answer": true}', { passed: true }],
    ['<think>hm</think>```json\n{"answer": false, "x": "y"}\n```', { passed: false }],
    ['{"answer": "yes"}', { passed: false, parseError: true }],
    ["not json", { passed: false, parseError: true }],
  ])("%j", (text, v) => expect(parseVerdict(text)).toEqual(v));
});

describe("llmJudge", () => {
  it("asks with the JSON-schema response format and scores the rule-less standard", async () => {
    const m = model(
      () =>
        '{"high_level_understanding_of_the_question":"","analysis_of_if_focus_on":"","analysis_of_pass_condition":"","analysis_of_failure_examples":"","answer":true}',
    );
    const s = await scoreEpisode(task, turns, llmJudge(m));
    expect(s).toMatchObject({ reward: 1, success: true, masked: false, judgeCalls: 1 });
    expect(m.requests[0]!.responseSchema).toEqual({
      name: VERDICT_SCHEMA.name,
      schema: VERDICT_SCHEMA.schema,
    });
    expect(m.requests[0]!.messages[0]!.content).toContain("**Question:** polite?");
    expect(m.requests[0]!.messages[0]!.content).toContain("Assistant: hello");
  });

  it("invalid JSON from the judge fails the standard and is counted, not masked", async () => {
    const s = await scoreEpisode(task, turns, llmJudge(model(() => "sure!")));
    expect(s).toMatchObject({ reward: 0.5, masked: false, judgeParseErrors: 1 });
  });

  it("retries API failures with backoff, then succeeds", async () => {
    const delays: number[] = [];
    const m = model((i) => (i < 2 ? new Error("502") : '{"answer":true}'));
    const s = await scoreEpisode(
      task,
      turns,
      llmJudge(m, { retries: 3, baseDelayMs: 1, onRetry: (r) => delays.push(r.delayMs) }),
    );
    expect(m.requests).toHaveLength(3);
    expect(delays).toHaveLength(2);
    expect(s.reward).toBe(1);
  });

  it("persistent API failure masks the episode (never a fake 0)", async () => {
    const m = model(() => new Error("502 Bad Gateway"));
    const s = await scoreEpisode(task, turns, llmJudge(m, { retries: 2, baseDelayMs: 1 }));
    expect(m.requests).toHaveLength(3);
    expect(s.masked).toBe(true);
    expect(s.reward).toBeUndefined();
    expect(s.maskReason).toContain("502");
  });
});
