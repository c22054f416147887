import { describe, expect, it } from "vitest";
import { requestSeed } from "../../../src/core/sampling-seeds.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import type { Environment } from "../../../src/envs/env.js";
import { startMockOpenAIServer } from "../../../src/testing/index.js";
import { parseTrainConfig } from "../../../src/train/config.js";
import { realEnvEvaluator } from "../../../src/train/evaluator.js";

const tasks: Task[] = ["A", "B"].map((id) =>
  TaskZ.parse({
    id: `find-${id}`,
    domain: "demo",
    tools: [{ name: "lookup", description: "Look up", parameters: { type: "object", properties: {} } }],
    user_turns: [`Look up ${id}.`],
    checklists: [[[{ question: "calls lookup", rule: { call: "lookup" } }]]],
  }),
);

const env: Environment = {
  tools: () => tasks[0]!.tools,
  call: () => Promise.resolve({ ok: true, content: '{"found": true}' }),
  snapshot: () => ({}),
  hash: () => "",
};

/** One evaluation at `step` (sampled at eval_temperature 0.7); the seeds its requests carried, sorted. */
async function evalSeeds(seed: number, step: number): Promise<number[]> {
  const server = await startMockOpenAIServer({
    handler: (body) =>
      body.messages[body.messages.length - 1]!.role === "user"
        ? '<tool_call>{"name": "lookup", "arguments": {}}</tool_call>'
        : "Done.",
    latencyMs: () => Math.random() * 10,
  });
  try {
    const config = parseTrainConfig({
      endpoint: "http://127.0.0.1:9",
      tasks: "unused.jsonl",
      eval_samples: 2,
      eval_temperature: 0.7,
      concurrency: 4,
      seed,
    });
    const policy = new OpenAIChatModel({ baseURL: server.baseURL, model: "mock-model" });
    const metrics = await realEnvEvaluator({ policy, tasks, envFactory: () => env, config }).evaluate(step);
    expect(metrics).toMatchObject({ episodes: 4, env_calls: 4 });
    return server.requests.map((r) => r.body.seed as number).sort((a, b) => a - b);
  } finally {
    await server.close();
  }
}

describe("evaluation during training", () => {
  it("seeds every request from (seed, step, eval task, sample, call), apart from the training rollouts'", async () => {
    const first = await evalSeeds(3, 5);
    expect(first).toHaveLength(8); // 2 tasks × 2 samples × (call, reply)
    expect(new Set(first).size).toBe(8);
    expect(await evalSeeds(3, 5)).toEqual(first);
    const expected = tasks.flatMap((t) =>
      [0, 1].flatMap((sample) =>
        [0, 1].map((call) => requestSeed({ seed: 3, step: 5, task: `eval:${t.id}`, sample }, call)),
      ),
    );
    expect(first).toEqual(expected.sort((a, b) => a - b));
    const training = tasks.flatMap((t) =>
      [0, 1].flatMap((sample) =>
        [0, 1].map((call) => requestSeed({ seed: 3, step: 5, task: t.id, sample }, call)),
      ),
    );
    expect(first.some((s) => training.includes(s))).toBe(false);
    expect((await evalSeeds(3, 6)).some((s) => first.includes(s))).toBe(false);
  });
});
