import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import { EndpointPool } from "../../../src/engines/endpoint-pool.js";
import { llmJudge } from "../../../src/reward/index.js";
import { isRehearsalRequest, rehearsalResponder, runEpisode } from "../../../src/rollout/index.js";
import type { MockOpenAIServer } from "../../../src/testing/index.js";
import { call, orderTask, result } from "../../unit/rollout/fixtures.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";

const start = mockServersClosedAfterEach();

const judgedTask = () =>
  orderTask({ user_turns: ["Where is order A1?"], checklists: [[[{ question: "Was the agent polite?" }]]] });

describe("rollout against an OpenAI-compatible endpoint", () => {
  it("a judge endpoint answering 502 is retried with exponential backoff, then the episode is masked", async () => {
    const policySrv = await start({ handler: () => "Hello! A1 is pending." });
    const judgeSrv = await start({ failures: () => 502 });
    const policy = new OpenAIChatModel({
      baseURL: policySrv.baseURL,
      model: "p",
      maxRetries: 0,
      returnTokenIds: true,
    });
    const judgeModel = new OpenAIChatModel({ baseURL: judgeSrv.baseURL, model: "j", maxRetries: 0 });
    const delays: number[] = [];
    const judge = llmJudge(judgeModel, {
      retries: 3,
      baseDelayMs: 40,
      maxDelayMs: 1000,
      onRetry: (r) => delays.push(r.delayMs),
    });
    const ep = await runEpisode(judgedTask(), { policy, responder: rehearsalResponder(policy), judge });

    expect(judgeSrv.requests).toHaveLength(4);
    expect(judgeSrv.requests.every((r) => r.outcome === 502)).toBe(true);
    expect(judgeSrv.requests[0]!.body.response_format).toMatchObject({ type: "json_schema" });
    // jittered exponential backoff: retry k waits in [base·2^k / 2, base·2^k]
    expect(delays).toHaveLength(3);
    delays.forEach((d, k) => {
      expect(d).toBeGreaterThanOrEqual((40 * 2 ** k) / 2);
      expect(d).toBeLessThanOrEqual(40 * 2 ** k);
    });
    // the waits really happened between attempts
    const gaps = judgeSrv.requests.slice(1).map((r, k) => r.receivedAt - judgeSrv.requests[k]!.receivedAt);
    gaps.forEach((g, k) => expect(g).toBeGreaterThanOrEqual(Math.floor(delays[k]!) - 1));
    expect(ep.masked).toBe(true);
    expect(ep.reward).toBeUndefined();
    expect(ep.rows).toHaveLength(1); // the episode itself is kept whole, only excluded from the update
  });

  it("a judge that recovers after a 502 scores the episode", async () => {
    const policySrv = await start({ handler: () => "Hello!" });
    const judgeSrv = await start({
      failures: { 0: 502 },
      handler: () =>
        '{"understanding":"","analysis_of_pass_condition":"","analysis_of_failure_examples":"","answer":true}',
    });
    const policy = new OpenAIChatModel({ baseURL: policySrv.baseURL, model: "p", maxRetries: 0 });
    const judge = llmJudge(new OpenAIChatModel({ baseURL: judgeSrv.baseURL, model: "j", maxRetries: 0 }), {
      baseDelayMs: 10,
    });
    const ep = await runEpisode(judgedTask(), { policy, responder: rehearsalResponder(policy), judge });
    expect(judgeSrv.requests.map((r) => r.outcome)).toEqual([502, 200]);
    expect(ep).toMatchObject({ masked: false, reward: 1, success: true });
  });

  it("rows carry the server's token ids and logprobs, through an EndpointPool with failover", async () => {
    const handler = (body: { messages: Array<{ role: string; content: string | null }> }) => {
      const msgs = body.messages.map((m) => ({ role: m.role as "system", content: m.content ?? "" }));
      if (isRehearsalRequest(msgs)) return result({ status: "pending" });
      return body.messages.at(-1)!.role === "tool" ? "A1 is pending." : call("get_order", { order_id: "A1" });
    };
    const down = await start({ failures: () => 503 });
    const up = await start({ handler });
    const mk = (s: MockOpenAIServer) =>
      new OpenAIChatModel({ baseURL: s.baseURL, model: "p", maxRetries: 0, returnTokenIds: true });
    const pool = new EndpointPool([mk(down), mk(up)], { maxInFlight: 4, baseDelayMs: 5 });
    const task = orderTask({ user_turns: ["Where is order A1?"], checklists: [] });
    const ep = await runEpisode(task, { policy: pool, responder: rehearsalResponder(pool) });
    expect(ep.endReason).toBe("done");
    expect(ep.rows.map((r) => r.role)).toEqual(["act", "rehearse", "act"]);
    for (const r of ep.rows) {
      expect(r.promptTokenIds.length).toBeGreaterThan(0);
      expect(r.tokenIds.length).toBeGreaterThan(0);
      expect(r.logprobs).toHaveLength(r.tokenIds.length);
    }
    expect(ep.calls[0]!.result).toBe('{"status":"pending"}');
    expect(pool.stats().failovers).toBeGreaterThan(0);
  });
});
