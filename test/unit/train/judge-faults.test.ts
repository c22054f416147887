import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TaskZ } from "../../../src/core/task.js";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import { llmJudge } from "../../../src/reward/llm-judge.js";
import { rehearsalResponder } from "../../../src/rollout/index.js";
import {
  startMockOpenAIServer,
  type MockOpenAIServer,
  type MockOpenAIServerOptions,
} from "../../../src/testing/mock-openai-server.js";
import { ScriptedPolicy } from "../../../src/testing/scripted-policy.js";
import { parseLoopConfig } from "../../../src/train/config.js";
import { InMemoryTrainEngine } from "../../../src/train/in-memory-engine.js";
import { runTrainLoop } from "../../../src/train/loop.js";
import { rolloutSampler } from "../../../src/train/rollout-sampler.js";
import type { StepMetrics } from "../../../src/train/step-metrics.js";

/**
 * A judge endpoint (a real HTTP server on 127.0.0.1) that fails in each way the issue names, under
 * the training loop: API failures (500s, a hang past the client's timeout) mask the episodes and the
 * run goes on; an answer that is not a verdict is not an API failure — as in the reference, the
 * standard fails and the episode ends after that turn (`judge_malformed`), unmasked.
 */
const task = TaskZ.parse({
  id: "t",
  domain: "d",
  tools: [],
  user_turns: ["hi", "bye"],
  checklists: [[[{ question: "polite?" }], [{ question: "polite again?" }]]],
});

let server: MockOpenAIServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function trainWithJudge(judgeServer: MockOpenAIServerOptions): Promise<StepMetrics[]> {
  server = await startMockOpenAIServer(judgeServer);
  const judge = llmJudge(
    new OpenAIChatModel({ baseURL: server.baseURL, model: "judge", timeoutMs: 300, maxRetries: 0 }),
    { retries: 1, baseDelayMs: 1, maxDelayMs: 2 },
  );
  const policy = new ScriptedPolicy({ act: ["hello"], repeatLast: true });
  const config = parseLoopConfig({ steps: 2, group_size: 2, tasks_per_step: 1, lr: 1e-3 });
  const out = mkdtempSync(join(tmpdir(), "envace-judge-faults-"));
  const engine = new InMemoryTrainEngine();
  const summary = await runTrainLoop(
    { config, tasks: [task], outDir: out, resume: false },
    {
      engines: { act: engine, rehearse: engine },
      sampler: rolloutSampler({ policy, responder: rehearsalResponder(policy), judge, config }),
    },
  );
  expect(summary.last_step).toBe(2); // the run went on to its end
  return readFileSync(join(out, "metrics.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as StepMetrics);
}

describe("a failing judge endpoint during training", () => {
  it("500s: every episode is masked, never scored 0, and no update is made from them", async () => {
    const lines = await trainWithJudge({ failures: () => 500 });
    for (const m of lines) {
      expect(m.masked).toBe(m.episodes);
      expect(m.reward_mean).toBeNull();
      expect(m.optim_skipped).toBe(true);
    }
    expect(server!.requests.length).toBeGreaterThanOrEqual(2 * 2 * 2); // retried
  });

  it("a hang past the client's timeout: masked the same way", async () => {
    const lines = await trainWithJudge({ failures: () => "hang" });
    for (const m of lines) expect(m.masked).toBe(m.episodes);
  });

  it("garbage: the standard fails, the episode ends after the turn, unmasked", async () => {
    const lines = await trainWithJudge({ handler: () => "I think it was fine?" });
    for (const m of lines) {
      expect(m.masked).toBe(0);
      expect(m.end_reasons).toEqual({ judge_malformed: m.episodes });
      expect(m.reward_mean).toBe(0);
    }
  });
});
