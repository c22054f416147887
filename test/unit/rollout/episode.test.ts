import { describe, expect, it } from "vitest";
import {
  runEpisode,
  rehearsalResponder,
  simulatorResponder,
  realResponder,
  type EpisodeOptions,
} from "../../../src/rollout/index.js";
import { ScriptedPolicy, CountingEnvironment } from "../../../src/testing/index.js";
import { call, orderTask, OrderEnv, result } from "./fixtures.js";

function rehearsalOpts(policy: ScriptedPolicy, extra: Partial<EpisodeOptions> = {}): EpisodeOptions {
  return { policy, responder: rehearsalResponder(policy, { variant: "compact" }), ...extra };
}

describe("runEpisode in rehearsal mode", () => {
  it("plays both user turns: exact messages, rows, reward", async () => {
    const policy = new ScriptedPolicy({
      act: [
        `<think>look it up</think>${call("get_order", { order_id: "A1" })}`,
        "Order A1 is pending.",
        call("cancel_order", { order_id: "A1" }),
        "Done, A1 is cancelled.",
      ],
      rehearse: [`<think>ok</think>\n${result({ status: "pending" })}`, result({ status: "cancelled" })],
    });
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy, { sample: 3 }));
    expect(ep.endReason).toBe("done");
    expect(ep.sample).toBe(3);
    expect(ep.messages).toEqual([
      { role: "system", content: "You are a retail agent." },
      { role: "user", content: "Where is order A1?" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_0_0_0", name: "get_order", arguments: { order_id: "A1" } }],
      },
      { role: "tool", content: '{"status":"pending"}', toolCallId: "call_0_0_0", name: "get_order" },
      { role: "assistant", content: "Order A1 is pending." },
      { role: "user", content: "Cancel it." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1_0_0", name: "cancel_order", arguments: { order_id: "A1" } }],
      },
      { role: "tool", content: '{"status":"cancelled"}', toolCallId: "call_1_0_0", name: "cancel_order" },
      { role: "assistant", content: "Done, A1 is cancelled." },
    ]);
    expect(ep.rows.map((r) => [r.role, r.turn])).toEqual([
      ["act", 0],
      ["rehearse", 0],
      ["act", 0],
      ["act", 1],
      ["rehearse", 1],
      ["act", 1],
    ]);
    for (const r of ep.rows) {
      expect(r.tokenIds.length).toBeGreaterThan(0);
      expect(r.logprobs).toHaveLength(r.tokenIds.length);
      expect(r.promptTokenIds.length).toBeGreaterThan(0);
    }
    expect(ep.replies).toEqual(["Order A1 is pending.", "Done, A1 is cancelled."]);
    expect(ep.calls.map((c) => [c.source, c.ok])).toEqual([
      ["rehearsal", true],
      ["rehearsal", true],
    ]);
    expect(ep.envCalls).toBe(0);
    expect(ep.turnScores).toEqual([1, 1]);
    expect(ep.reward).toBe(1);
    expect(ep.success).toBe(true);
    expect(ep.masked).toBe(false);
    // the rehearse prompt (compact) carries the few-shot example and the call
    const rehearseReq = policy.callsFor("rehearse")[0]!.request;
    expect(rehearseReq.messages[1]!.content).toContain('get_order {"order_id":"A1"} -> {"status":"pending"}');
    // the act call sees the tools
    expect(policy.callsFor("act")[0]!.request.tools?.map((t) => t.name)).toEqual([
      "get_order",
      "cancel_order",
    ]);
  });

  it.each([
    ["", "EMPTY_SIMULATOR_OUTPUT"],
    ["<think>only thoughts</think>", "EMPTY_SIMULATOR_OUTPUT"],
    ['{"status":"pending"}', "NO_EXECUTION_RESULT_TAG_FOUND"],
    ['<execution_result>{"status":"pending"}</execution_result>', "EXECUTION_RESULT_TAG_MALFORMED"],
    ["<execution_result>\n{status: pending}\n</execution_result>", "SIMULATOR_JSON_DECODE_ERROR"],
    ["<execution_result>\n{}\n</execution_result>", "INVALID_EXECUTION_RESULT_TYPE"],
    ['<execution_result>\n"pending"\n</execution_result>', "INVALID_EXECUTION_RESULT_TYPE"],
  ])("a rehearsed response %j becomes a %s tool error and the actor goes on", async (raw, code) => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), "Sorry, the lookup failed.", "ok"],
      rehearse: [raw],
    });
    const task = orderTask({ user_turns: ["Where is order A1?"], checklists: [] });
    const ep = await runEpisode(task, rehearsalOpts(policy));
    expect(ep.endReason).toBe("done");
    expect(ep.calls).toHaveLength(1);
    expect(ep.calls[0]!.parseError).toBe(code);
    expect(ep.calls[0]!.ok).toBe(false);
    const toolMsg = ep.messages[3]!;
    expect(toolMsg.role).toBe("tool");
    expect(JSON.parse(toolMsg.content).error_tool_call.code).toBe(code);
    // the second act call saw the error
    expect(policy.callsFor("act")[1]!.request.messages.at(-1)!.content).toContain(code);
    expect(ep.rows.map((r) => r.role)).toEqual(["act", "rehearse", "act"]);
  });

  it("an error_tool_call verdict from the rehearser ends the episode", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "ZZ" })],
      rehearse: [result({ error_tool_call: { code: "TOOL_EXECUTION_ERROR", message: "no such order" } })],
    });
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy));
    expect(ep.endReason).toBe("rehearser_error_tool_call");
    expect(ep.messages.at(-1)).toMatchObject({ role: "tool", name: "get_order" });
    expect(ep.rows.map((r) => r.role)).toEqual(["act", "rehearse"]);
    expect(ep.turnScores).toEqual([]);
    expect(ep.reward).toBe(0);
    expect(ep.success).toBe(false);
  });

  it("invalid calls get validation errors with no model call; valid ones are rehearsed", async () => {
    const policy = new ScriptedPolicy({
      act: [
        [
          call("delete_everything", {}),
          call("get_order", { id: 5 }),
          call("get_order", { order_id: "A1" }),
        ].join("\n"),
        "It is pending.",
      ],
      rehearse: [result({ status: "pending" })],
    });
    const task = orderTask({ user_turns: ["Where is order A1?"] });
    const ep = await runEpisode(task, { ...rehearsalOpts(policy), invalidCall: "retry" });
    expect(ep.calls.map((c) => c.source)).toEqual(["validation", "validation", "rehearsal"]);
    expect(JSON.parse(ep.calls[0]!.result).error_tool_call.code).toBe("TOOL_NOT_AVAILABLE");
    expect(JSON.parse(ep.calls[1]!.result).error_tool_call.code).toBe("INVALID_PARAMETERS");
    expect(policy.callsFor("rehearse")).toHaveLength(1);
    // the one rehearse row points at the call it answered, past the two that never reached it
    expect(ep.rows.filter((r) => r.role === "rehearse").map((r) => r.callIndex)).toEqual([2]);
    expect(ep.rows.filter((r) => r.role === "act").every((r) => r.callIndex === undefined)).toBe(true);
    expect(ep.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual([
      "call_0_0_0",
      "call_0_0_1",
      "call_0_0_2",
    ]);
    // the lookup was made, but in a step whose other calls drew error_tool_call responses: as in the
    // reference judge, that step's tool-related standards fail; "pending" was said: 1 of 2
    expect(ep.turnScores).toEqual([0.5]);
  });

  it("a malformed <tool_call> block becomes an INVALID_TOOL_CALL_FORMAT tool error", async () => {
    const policy = new ScriptedPolicy({ act: ['<tool_call>{"name": get_order}</tool_call>', "pending"] });
    const task = orderTask({ user_turns: ["Where is order A1?"], checklists: [] });
    const ep = await runEpisode(task, rehearsalOpts(policy));
    expect(ep.endReason).toBe("done");
    expect(ep.calls[0]).toMatchObject({ source: "validation", ok: false });
    expect(ep.messages[3]).toMatchObject({ role: "tool", name: "error_tool_call" });
    expect(JSON.parse(ep.messages[3]!.content).error_tool_call.code).toBe("INVALID_TOOL_CALL_FORMAT");
    expect(policy.callsFor("rehearse")).toHaveLength(0);
  });

  it("uses the server's parsed tool_calls when the sample has them", async () => {
    const policy = new ScriptedPolicy({
      act: [
        {
          text: "Let me check.",
          toolCalls: [{ id: "srv_1", name: "get_order", arguments: { order_id: "A1" } }],
        },
        "pending",
      ],
      rehearse: [result({ status: "pending" })],
    });
    const ep = await runEpisode(orderTask({ user_turns: ["Where?"] }), rehearsalOpts(policy));
    expect(ep.messages[2]).toEqual({
      role: "assistant",
      content: "Let me check.",
      toolCalls: [{ id: "srv_1", name: "get_order", arguments: { order_id: "A1" } }],
    });
    expect(ep.messages[3]).toMatchObject({ role: "tool", toolCallId: "srv_1" });
  });
});

describe("limits end the episode with their reason", () => {
  it("max assistant turns per user turn", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" })],
      rehearse: [result({ status: "pending" })],
      repeatLast: true,
    });
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy, { maxAssistantTurns: 3 }));
    expect(ep.endReason).toBe("max_assistant_turns");
    expect(ep.rows.filter((r) => r.role === "act")).toHaveLength(3);
    expect(ep.replies).toEqual([]);
    expect(ep.reward).toBe(0);
  });

  it("max parallel calls", async () => {
    const three = [1, 2, 3].map((i) => call("get_order", { order_id: `A${i}` })).join("");
    const policy = new ScriptedPolicy({ act: [three] });
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy, { maxParallelCalls: 2 }));
    expect(ep.endReason).toBe("max_parallel_calls");
    expect(ep.calls).toHaveLength(0);
    expect(ep.messages.at(-1)!.role).toBe("assistant");
    expect(policy.callsFor("rehearse")).toHaveLength(0);
  });

  it("context budget: the over-budget call is dropped, never truncated", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), "pending", call("cancel_order", { order_id: "A1" })],
      rehearse: [result({ status: "pending" })],
    });
    // fake ids are one per word: the first act prompt has 9 words, the later ones more
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy, { contextBudgetTokens: 12 }));
    expect(ep.endReason).toBe("context_budget");
    const first = policy.calls[0]!.request.messages.map((m) => m.content)
      .join("\n")
      .split(/\s+/).length;
    expect(first).toBeLessThanOrEqual(12);
    // every recorded row is within budget
    for (const r of ep.rows) expect(r.promptTokenIds.length).toBeLessThanOrEqual(12);
    expect(ep.rows.length).toBeLessThan(policy.calls.length);
  });

  it("a failing policy call ends the episode with model_error", async () => {
    const policy = new ScriptedPolicy({ act: [{ throws: new Error("503 from worker") }] });
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy));
    expect(ep.endReason).toBe("model_error");
    expect(ep.error).toContain("503");
    expect(ep.rows).toEqual([]);
  });
});

describe("responders", () => {
  const script = () => ({
    act: [
      call("get_order", { order_id: "A1" }),
      call("get_order", { order_id: "NOPE" }) + call("nope", {}),
      "pending",
      call("cancel_order", { order_id: "A1" }),
      "cancelled",
    ],
    rehearse: [
      result({ status: "pending" }),
      result({ error: "not found" }),
      result({ status: "cancelled" }),
    ],
  });

  it("rehearsal mode makes zero calls to a counting environment", async () => {
    const env = new CountingEnvironment(new OrderEnv());
    const policy = new ScriptedPolicy(script());
    const ep = await runEpisode(orderTask(), rehearsalOpts(policy));
    expect(ep.endReason).toBe("done");
    expect(env.calls).toBe(0);
    expect(ep.envCalls).toBe(0);
    expect(ep.rows.filter((r) => r.role === "rehearse")).toHaveLength(3);
  });

  it("rehearsal requests carry the responder's temperature and top_p; acting requests do not take them", async () => {
    const policy = new ScriptedPolicy(script());
    const responder = rehearsalResponder(policy, { variant: "compact", temperature: 1, topP: 0.8 });
    await runEpisode(orderTask(), { policy, responder, temperature: 0.7 });
    const rehearse = policy.callsFor("rehearse").map((c) => c.request);
    expect(rehearse).toHaveLength(3);
    for (const r of rehearse) expect([r.temperature, r.topP]).toEqual([1, 0.8]);
    for (const c of policy.callsFor("act")) expect(c.request.topP).toBeUndefined();
  });
  it("real mode calls the environment for every valid call, in order, one env per episode", async () => {
    const envs: CountingEnvironment[] = [];
    const responder = realResponder(() => {
      const env = new CountingEnvironment(new OrderEnv());
      envs.push(env);
      return env;
    });
    const policy = new ScriptedPolicy({ act: script().act });
    const ep = await runEpisode(orderTask(), { policy, responder });
    expect(envs).toHaveLength(1);
    expect(envs[0]!.log.map((c) => [c.name, c.arguments.order_id])).toEqual([
      ["get_order", "A1"],
      ["get_order", "NOPE"],
      ["cancel_order", "A1"],
    ]);
    expect(ep.envCalls).toBe(3);
    expect(ep.rows.every((r) => r.role === "act")).toBe(true);
    expect(ep.calls.map((c) => [c.source, c.ok])).toEqual([
      ["real", true],
      ["real", false],
      ["validation", false],
      ["real", true],
    ]);
    // An execution failure is an ordinary result, not an invalid-call verdict.
    expect(JSON.parse(ep.calls[1]!.result)).toEqual({ error: "no order NOPE" });
    expect(envs[0]!.snapshot()).toEqual({ A1: "cancelled" });
    expect(policy.callsFor("rehearse")).toHaveLength(0);
  });

  it("simulator mode: the frozen model answers with the full prompt and its calls are not rows", async () => {
    const simulator = new ScriptedPolicy({ name: "sim", rehearse: script().rehearse });
    const policy = new ScriptedPolicy({ act: script().act });
    const ep = await runEpisode(orderTask(), { policy, responder: simulatorResponder(simulator) });
    expect(ep.endReason).toBe("done");
    expect(ep.rows.every((r) => r.role === "act")).toBe(true);
    expect(ep.rows).toHaveLength(5);
    expect(simulator.calls).toHaveLength(3);
    expect(ep.calls.filter((c) => c.source === "simulator")).toHaveLength(3);
    const user = simulator.calls[0]!.request.messages[1]!.content;
    expect(user).toContain("Candidate tools");
    expect(user).toContain("Previous tool calls and results (few-shot):");
    expect(user).toContain("User: Where is order A1?");
    expect(user).toContain(`RL model's latest response:\n${call("get_order", { order_id: "A1" })}`);
    expect(user).toContain("- name: get_order");
  });

  it("the example cache answers an identical call with the recorded result, only when on", async () => {
    const mk = () =>
      new ScriptedPolicy({
        act: [call("get_order", { order_id: "A1" }), "pending"],
        rehearse: [result({ status: "rehearsed" })],
      });
    const task = orderTask({ user_turns: ["Where?"] });
    const on = mk();
    const epOn = await runEpisode(task, rehearsalOpts(on, { exampleCache: true }));
    expect(epOn.calls[0]).toMatchObject({ source: "cache", result: '{"status":"pending"}' });
    expect(on.callsFor("rehearse")).toHaveLength(0);
    const off = mk();
    const epOff = await runEpisode(task, rehearsalOpts(off));
    expect(epOff.calls[0]).toMatchObject({ source: "rehearsal", result: '{"status":"rehearsed"}' });
  });
});

describe("judging", () => {
  it("refuses a task with rule-less standards and no judge, before any model call", async () => {
    const policy = new ScriptedPolicy({ act: ["hi"] });
    const task = orderTask({ user_turns: ["hi"], checklists: [[[{ question: "polite?" }]]] });
    await expect(runEpisode(task, rehearsalOpts(policy))).rejects.toMatchObject({ code: "INVALID_CONFIG" });
    expect(policy.calls).toHaveLength(0);
  });

  it("a judge API failure masks the episode instead of scoring 0", async () => {
    const { EnvaceError } = await import("../../../src/core/errors.js");
    const judge = {
      judge: async () => {
        throw new EnvaceError("JUDGE_ERROR", "judge down");
      },
    };
    const policy = new ScriptedPolicy({ act: ["hello"] });
    const task = orderTask({ user_turns: ["hi"], checklists: [[[{ question: "polite?" }]]] });
    const ep = await runEpisode(task, rehearsalOpts(policy, { judge }));
    expect(ep.masked).toBe(true);
    expect(ep.reward).toBeUndefined();
    expect(ep.success).toBe(false);
    expect(ep.maskReason).toContain("judge down");
  });

  it("judge verdicts combine with rule verdicts by weight", async () => {
    const judge = { judge: async () => [{ passed: false }] };
    const policy = new ScriptedPolicy({ act: ["pending"] });
    const task = orderTask({
      user_turns: ["hi"],
      checklists: [
        [
          [
            { question: "said pending", rule: { reply_contains: ["pending"] }, weight: 3 },
            { question: "polite?" },
          ],
        ],
      ],
    });
    const ep = await runEpisode(task, rehearsalOpts(policy, { judge }));
    expect(ep.turnScores).toEqual([0.75]);
    expect(ep.reward).toBe(0.75);
    expect(ep.success).toBe(false);
  });
});
