import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import { runEpisodeWithRehearsal, testTimeSeeds } from "../../../src/testtime/episode.js";
import { startMockOpenAIServer, type MockChatBody } from "../../../src/testing/index.js";
import { OrderEnv, orderTask } from "./fixtures.js";

/**
 * Acts with a lookup, rehearses its result, replies after a result. Like a sampler, what it says
 * depends on the request's seed (the order it looks up, the status it imagines), so a seed that
 * moved to another attempt shows in that attempt's later requests.
 */
function reply(b: MockChatBody): string {
  const draw = Number(b.seed ?? 0) % 5;
  if (/execution_result/.test(b.messages[0]?.content ?? ""))
    return `<execution_result>\n{"status": "s${draw}"}\n</execution_result>`;
  const last = b.messages[b.messages.length - 1]!;
  return last.role === "tool"
    ? "Order A1 is pending."
    : `<tool_call>{"name": "get_order", "arguments": {"order_id": "A${draw}"}}</tool_call>`;
}

/**
 * One rehearsed episode (parallel:4, its attempts sampled) against a mock server whose latencies
 * are random, so the attempts' requests interleave differently each run: per request, the seed it
 * carried and the conversation it continued, sorted.
 */
async function episodeRequests(seed: number): Promise<{ seed: unknown; messages: string }[]> {
  const server = await startMockOpenAIServer({ handler: reply, latencyMs: () => Math.random() * 15 });
  try {
    const policy = new OpenAIChatModel({ baseURL: server.baseURL, model: "mock-model" });
    const task = { ...orderTask(), user_turns: ["Where is order A1?"] };
    await testTimeSeeds(seed, task, () =>
      runEpisodeWithRehearsal(task, {
        policy,
        envFactory: () => new OrderEnv(),
        temperature: 0,
        rehearsal: {
          mode: "parallel",
          n: 4,
          memory: "consensus",
          promptVariant: "compact",
          temperature: 0.5,
        },
      }),
    );
    return server.requests
      .map((r) => ({ seed: r.body.seed, messages: JSON.stringify(r.body.messages) }))
      .sort((a, b) => `${String(a.seed)}${a.messages}`.localeCompare(`${String(b.seed)}${b.messages}`));
  } finally {
    await server.close();
  }
}

describe("test-time rehearsal's sampling seeds", () => {
  it("give each parallel attempt its own seeds, the same in every run however the attempts interleave", async () => {
    const first = await episodeRequests(7);
    // 4 attempts × (act, rehearse, act) and the committed run's two acts
    expect(first).toHaveLength(4 * 3 + 2);
    expect(first.every((r) => typeof r.seed === "number")).toBe(true);
    // the attempts' first act requests are the same conversation: only their seeds tell them apart
    const firstActs = first.filter((r) => !/execution_result|Before acting/.test(r.messages));
    expect(new Set(firstActs.map((r) => r.seed)).size).toBe(firstActs.length);
    for (let run = 0; run < 3; run++) expect(await episodeRequests(7)).toEqual(first);
    const other = await episodeRequests(8);
    expect(other.map((r) => r.seed)).not.toEqual(first.map((r) => r.seed));
  });
});
