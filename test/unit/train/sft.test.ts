import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import { TaskZ } from "../../../src/core/task.js";
import { buildRehearsalPrompt } from "../../../src/rollout/rehearsal-prompt.js";
import type { EpisodeResult } from "../../../src/rollout/types.js";
import type { Tokenizer } from "../../../src/train/engine.js";
import { InMemoryTrainEngine } from "../../../src/train/in-memory-engine.js";
import { learningRate } from "../../../src/train/lr-schedule.js";
import {
  actingExample,
  executionResultText,
  rehearsingExamplesFromEpisode,
  runSft,
  toSftSequence,
} from "../../../src/train/sft.js";
import { tasksForStep } from "../../../src/train/task-sampler.js";

/** A template like the worker's: each message = [START, role] + one token per word + [END]. */
const ROLE = { system: 10, user: 11, assistant: 12, tool: 13 } as const;
const fakeTokenizer: Tokenizer & { calls: number } = {
  calls: 0,
  async tokenize({ messages, addGenerationPrompt }) {
    this.calls++;
    const tokenIds: number[] = [];
    const spans: Array<{ message: number; start: number; end: number }> = [];
    messages.forEach((m, i) => {
      const start = tokenIds.length;
      tokenIds.push(
        1,
        ROLE[m.role],
        ...m.content
          .split(/\s+/)
          .filter(Boolean)
          .map((w) => 100 + w.length),
        2,
      );
      spans.push({ message: i, start, end: tokenIds.length });
    });
    if (addGenerationPrompt) tokenIds.push(1, ROLE.assistant);
    return { tokenIds, spans };
  },
};

const convo: Message[] = [
  { role: "system", content: "be nice" },
  { role: "user", content: "hi there" },
  { role: "assistant", content: "hello you" },
  { role: "user", content: "bye" },
  { role: "assistant", content: "see ya later" },
];

describe("SFT sequences", () => {
  it("acting: masks the content and end token of every assistant message, not their headers", async () => {
    const s = await toSftSequence(fakeTokenizer, actingExample(convo));
    // system [1,10,a,b,2] user [1,11,a,b,2] asst [1,12,a,b,2] user [1,11,a,2] asst [1,12,a,b,c,2]
    expect(s.tokenIds).toHaveLength(5 + 5 + 5 + 4 + 6);
    expect(s.lossMask).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1]);
    expect(s.advantages.every((a) => a === 1)).toBe(true);
  });

  it("rehearsing: the rehearsal prompt answered by the real result in <execution_result>", () => {
    const task = TaskZ.parse({
      id: "t1",
      domain: "d",
      tools: [{ name: "get", description: "get", parameters: { type: "object" } }],
      user_turns: ["get x"],
    });
    const call = { id: "c1", name: "get", arguments: { k: "x" } };
    const ep = {
      messages: [
        { role: "user", content: "get x" },
        { role: "assistant", content: "", toolCalls: [call] },
        { role: "tool", content: '{"v": 1}', toolCallId: "c1", name: "get" },
      ],
      calls: [{ turn: 0, call, result: '{"v": 1}', ok: true, source: "real" }],
    } as unknown as EpisodeResult;
    const [ex, ...rest] = rehearsingExamplesFromEpisode(task, ep);
    expect(rest).toHaveLength(0);
    const prompt = buildRehearsalPrompt({
      task,
      history: ep.messages.slice(0, 1),
      rawActMessage: '<tool_call>{"name":"get","arguments":{"k":"x"}}</tool_call>',
      call,
    });
    expect(ex!.messages.slice(0, -1)).toEqual(prompt);
    expect(ex!.messages.at(-1)).toEqual({
      role: "assistant",
      content: '<execution_result>\n{"v":1}\n</execution_result>',
    });
    expect(ex!.targets).toEqual([prompt.length]);
    expect(executionResultText("plain text")).toBe(
      '<execution_result>\n{"result":"plain text"}\n</execution_result>',
    );
  });

  it("runSft: cross_entropy calls, one optim_step per batch, warm-up then cosine lr", async () => {
    const engine = new InMemoryTrainEngine();
    const exs = Array.from({ length: 5 }, () => actingExample(convo));
    const r = await runSft(engine, fakeTokenizer, exs, {
      epochs: 2,
      batchSize: 2,
      lr: 1e-3,
      warmupSteps: 2,
      tokenBudget: 1000,
    });
    expect(r.steps).toBe(6);
    expect(engine.optimCalls.map((c) => c.lr)).toEqual(
      [1, 2, 3, 4, 5, 6].map((s) =>
        learningRate(s, { peak: 1e-3, totalSteps: 6, warmupSteps: 2, schedule: "cosine" }),
      ),
    );
    expect(engine.forwardBackwardCalls.every((c) => c.loss.fn === "cross_entropy")).toBe(true);
    expect(engine.forwardBackwardCalls.map((c) => c.sequences.length)).toEqual([2, 2, 1, 2, 2, 1]);
  });
});

describe("learningRate", () => {
  const o = { peak: 1, totalSteps: 6, warmupSteps: 2, schedule: "cosine" as const };
  it("warms up linearly then decays by cosine to 0 at the last step", () => {
    expect(learningRate(1, o)).toBe(0.5);
    expect(learningRate(2, o)).toBe(1);
    expect(learningRate(3, o)).toBeCloseTo(1, 12);
    expect(learningRate(6, o)).toBeCloseTo(0, 12);
    expect(learningRate(4, o)).toBeCloseTo(0.75, 12);
    expect(learningRate(5, { ...o, schedule: "constant" })).toBe(1);
  });
});

describe("tasksForStep", () => {
  it("visits each task once per epoch and depends only on (seed, step)", () => {
    const tasks = [0, 1, 2, 3, 4];
    const epoch = [1, 2, 3, 4, 5].flatMap((s) => tasksForStep(tasks, s, 2, 7)).slice(0, 10);
    expect([...epoch.slice(0, 5)].sort()).toEqual(tasks);
    expect([...epoch.slice(5, 10)].sort()).toEqual(tasks);
    expect(tasksForStep(tasks, 3, 2, 7)).toEqual(tasksForStep(tasks, 3, 2, 7));
    expect([1, 2, 3].map((s) => tasksForStep(tasks, s, 2, 8))).not.toEqual(
      [1, 2, 3].map((s) => tasksForStep(tasks, s, 2, 7)),
    );
  });
});
