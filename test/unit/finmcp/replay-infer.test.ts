import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import { readFinSamples } from "../../../src/bench/finmcp/load.js";
import { FinReplayEnvironment, recordedCalls } from "../../../src/bench/finmcp/replay-env.js";
import { inferSample } from "../../../src/bench/finmcp/infer.js";

const samples = readFinSamples(new URL("fixtures/synthetic-benchmark.json", import.meta.url).pathname);

describe("FinMCP-Bench replayed tools", () => {
  it("pairs each recorded call with its result by tool_call_id", () => {
    expect(recordedCalls(samples[1]!.messages).map((r) => [r.name, r.arguments, r.result])).toEqual([
      ["SearchFunds", { keyword: "bond", limit: 2 }, '{"funds": ["B1", "B2"]}'],
      ["GetFundInfo", { code: "B1" }, '{"code": "B1", "fee": 0.3}'],
      ["GetFundInfo", { code: "B2" }, '{"code": "B2", "fee": 0.5}'],
    ]);
  });

  it("answers recorded calls (argument order aside), refuses others as data", async () => {
    const env = new FinReplayEnvironment(samples[1]!);
    expect(env.tools().map((t) => t.name)).toEqual(["SearchFunds", "GetFundInfo"]);
    const hit = await env.call({ id: "x", name: "SearchFunds", arguments: { limit: 2, keyword: "bond" } });
    expect(hit).toEqual({ ok: true, content: '{"funds": ["B1", "B2"]}' });
    const miss = await env.call({ id: "y", name: "GetFundInfo", arguments: { code: "B9" } });
    expect(!miss.ok && miss.error.code).toBe("TOOL_EXECUTION_ERROR");
    const unknown = await env.call({ id: "z", name: "Nope", arguments: {} });
    expect(!unknown.ok && unknown.error.code).toBe("TOOL_NOT_AVAILABLE");
  });
});

describe("FinMCP-Bench inference", () => {
  it("runs every user turn on the ground-truth history, with replayed results", async () => {
    const seen: ChatRequest[] = [];
    const model: ChatModel = {
      name: "scripted",
      async chat(req) {
        seen.push(req);
        const last = req.messages[req.messages.length - 1]!;
        if (last.role === "user" && String(last.content).includes("news"))
          return {
            samples: [
              {
                text: "",
                toolCalls: [{ id: "m1", name: "GetNews", arguments: { topic: "market" } }],
                finishReason: "tool_calls",
              },
            ],
          };
        return { samples: [{ text: "done", finishReason: "stop" }] };
      },
    };
    const pred = await inferSample(samples[2]!, model);
    expect(pred.map((m) => m.role)).toEqual(["user", "assistant", "tool", "assistant", "user", "assistant"]);
    expect(pred[2]!.content).toBe('{"headline": "Synthetic index up 1%"}');
    // the second user turn starts from the ground truth, not from the model's first answer
    expect(seen[2]!.messages.map((m) => m.content)).toContain("The synthetic index rose 1%.");
    expect(seen[0]!.tools?.map((t) => t.name)).toEqual(["GetNews", "GetQuote"]);
  });
});
