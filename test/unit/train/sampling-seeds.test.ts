import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/core/model.js";
import { requestSeed, scopedSeed, withSamplingSeeds } from "../../../src/core/sampling-seeds.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import { rehearsalResponder } from "../../../src/rollout/index.js";
import { startMockOpenAIServer } from "../../../src/testing/index.js";
import { parseTrainConfig } from "../../../src/train/config.js";
import { rolloutSampler } from "../../../src/train/rollout-sampler.js";

const tasks: Task[] = ["A", "B"].map((id) =>
  TaskZ.parse({
    id: `find-${id}`,
    domain: "demo",
    tools: [
      {
        name: "lookup",
        description: "Look up a record",
        parameters: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      },
    ],
    user_turns: [`Please look up record ${id}.`],
    checklists: [[[{ question: `calls lookup ${id}`, rule: { call: "lookup", args: { id } } }]]],
  }),
);

/** Acts with one tool call, rehearses its result, then replies; answers after a random delay. */
function reply(body: { messages: { role: string; content: string | null }[] }): string {
  if (/execution_result/.test(body.messages[0]?.content ?? ""))
    return '<execution_result>\n{"found": true}\n</execution_result>';
  const last = body.messages[body.messages.length - 1]!;
  return last.role === "user"
    ? '<tool_call>{"name": "lookup", "arguments": {"id": "A"}}</tool_call>'
    : "Done.";
}

/**
 * One step of rollouts through the real sampler and an OpenAI client against a mock server whose
 * latencies are random, so episodes interleave differently each run. Returns, per request, the
 * conversation it continued and the seed it carried, sorted so runs can be compared.
 */
async function sampleOnce(seed: number, step: number): Promise<string[]> {
  const server = await startMockOpenAIServer({ handler: reply, latencyMs: () => Math.random() * 15 });
  try {
    const policy = new OpenAIChatModel({ baseURL: server.baseURL, model: "mock-model" });
    const config = parseTrainConfig({
      endpoint: "http://127.0.0.1:9",
      tasks: "unused.jsonl",
      group_size: 3,
      tasks_per_step: 2,
      concurrency: 6,
      seed,
    });
    const sampler = rolloutSampler({ policy, responder: rehearsalResponder(policy), config });
    await sampler.sampleGroups(tasks, { groupSize: 3, step });
    return server.requests
      .map((r) => `${String(r.body.seed)} ${JSON.stringify(r.body.messages)}`)
      .sort((a, b) => a.localeCompare(b));
  } finally {
    await server.close();
  }
}

describe("per-request sampling seeds", () => {
  it("derive from (seed, step, task, sample, call index): each part changes the seed", () => {
    const key = { seed: 7, step: 3, task: "t", sample: 1 };
    const s = requestSeed(key, 2);
    expect(requestSeed({ ...key }, 2)).toBe(s);
    expect(Number.isInteger(s) && s >= 0 && s < 2 ** 31).toBe(true);
    const variants = [
      requestSeed({ ...key, seed: 8 }, 2),
      requestSeed({ ...key, step: 4 }, 2),
      requestSeed({ ...key, task: "u" }, 2),
      requestSeed({ ...key, sample: 2 }, 2),
      requestSeed(key, 3),
    ];
    expect(new Set([s, ...variants]).size).toBe(6);
  });

  it("count each episode's own calls, so concurrent episodes do not shift each other's seeds", async () => {
    expect(scopedSeed()).toBeUndefined();
    const a = { seed: 1, step: 1, task: "a", sample: 0 };
    const b = { ...a, sample: 1 };
    const seen: Record<string, number[]> = { a: [], b: [] };
    const pause = () => new Promise((r) => setTimeout(r, Math.random() * 5));
    await Promise.all(
      (
        [
          ["a", a],
          ["b", b],
        ] as const
      ).map(([name, key]) =>
        withSamplingSeeds(key, async () => {
          for (let i = 0; i < 4; i++) {
            await pause();
            seen[name]!.push(scopedSeed()!);
          }
        }),
      ),
    );
    expect(seen.a).toEqual([0, 1, 2, 3].map((i) => requestSeed(a, i)));
    expect(seen.b).toEqual([0, 1, 2, 3].map((i) => requestSeed(b, i)));
  });

  it("the OpenAI client sends the scoped seed, and keeps a seed the request set", async () => {
    const server = await startMockOpenAIServer();
    try {
      const m = new OpenAIChatModel({ baseURL: server.baseURL, model: "mock-model" });
      const req: ChatRequest = { messages: [{ role: "user", content: "hi" }] };
      const key = { seed: 5, step: 2, task: "x", sample: 0 };
      await m.chat(req);
      await withSamplingSeeds(key, async () => {
        await m.chat(req);
        await m.chat({ ...req, seed: 42 });
      });
      expect(server.requests.map((r) => r.body.seed)).toEqual([undefined, requestSeed(key, 0), 42]);
    } finally {
      await server.close();
    }
  });

  it("the same seed and config sample the same requests with the same seeds; another seed or step differs", async () => {
    const first = await sampleOnce(11, 1);
    const again = await sampleOnce(11, 1);
    expect(first.length).toBeGreaterThanOrEqual(6 * 3); // act, rehearse, reply per episode
    expect(first.every((r) => /^\d+ /.test(r))).toBe(true);
    expect(again).toEqual(first);
    const seedsOf = (rs: string[]) => new Set(rs.map((r) => r.split(" ")[0]));
    const other = await sampleOnce(12, 1);
    const later = await sampleOnce(11, 2);
    for (const rs of [other, later]) expect([...seedsOf(rs)].some((s) => seedsOf(first).has(s))).toBe(false);
    // every episode's requests have seeds of their own: 6 episodes × 3 calls, no two alike
    expect(seedsOf(first).size).toBe(first.length);
  });
});
