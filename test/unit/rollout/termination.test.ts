import { describe, expect, it } from "vitest";
import { runEpisode, rehearsalResponder, type EpisodeOptions } from "../../../src/rollout/index.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import type { Judge } from "../../../src/reward/types.js";
import { call, orderTask, result } from "./fixtures.js";

/**
 * The reference's termination rules (docs/reference-parity.md), one scripted episode each, under
 * the reference's settings: invalid calls end the episode, the assistant-turn cap counts the whole
 * episode. An episode that ends inside a turn leaves that turn unscored (0).
 */
function reference(policy: ScriptedPolicy, extra: Partial<EpisodeOptions> = {}): EpisodeOptions {
  return {
    policy,
    responder: rehearsalResponder(policy, { variant: "compact" }),
    invalidCall: "end",
    turnLimitScope: "episode",
    maxAssistantTurns: 30,
    ...extra,
  };
}

describe("termination rules (reference defaults)", () => {
  it("a malformed actor call block ends the episode; the turn scores 0 and nothing is rehearsed", async () => {
    const policy = new ScriptedPolicy({ act: ['<tool_call>{"name": get_order}</tool_call>', "pending"] });
    const ep = await runEpisode(orderTask(), reference(policy));
    expect(ep.endReason).toBe("invalid_call");
    expect(ep.turnScores).toEqual([]);
    expect(ep.reward).toBe(0);
    expect(policy.callsFor("act")).toHaveLength(1);
    expect(policy.callsFor("rehearse")).toHaveLength(0);
    expect(ep.messages.at(-1)).toMatchObject({ role: "tool", name: "error_tool_call" });
  });

  it("with invalid_call: retry the actor sees the error and goes on", async () => {
    const policy = new ScriptedPolicy({ act: ['<tool_call>{"name": get_order}</tool_call>', "pending"] });
    const ep = await runEpisode(orderTask({ user_turns: ["Where is A1?"] }), {
      ...reference(policy),
      invalidCall: "retry",
    });
    expect(ep.endReason).toBe("done");
    expect(policy.callsFor("act")).toHaveLength(2);
  });

  it.each([
    ["TOOL_NOT_AVAILABLE", call("delete_everything", {})],
    ["INVALID_PARAMETERS", call("get_order", { id: 5 })],
  ])("a call that fails validation (%s) ends the episode before any rehearsal", async (code, text) => {
    const policy = new ScriptedPolicy({ act: [text, "pending"] });
    const ep = await runEpisode(orderTask(), reference(policy));
    expect(ep.endReason).toBe("invalid_call");
    expect(JSON.parse(ep.calls[0]!.result).error_tool_call.code).toBe(code);
    expect(policy.callsFor("rehearse")).toHaveLength(0);
    expect(ep.reward).toBe(0);
  });

  it.each([
    ["", "EMPTY_SIMULATOR_OUTPUT"],
    ['{"status":"pending"}', "NO_EXECUTION_RESULT_TAG_FOUND"],
    ['<execution_result>{"status":"pending"}</execution_result>', "EXECUTION_RESULT_TAG_MALFORMED"],
    ["<execution_result>\n{status: pending}\n</execution_result>", "SIMULATOR_JSON_DECODE_ERROR"],
    ["<execution_result>\n{}\n</execution_result>", "INVALID_EXECUTION_RESULT_TYPE"],
  ])("a rehearsal %j that fails the parser (%s) ends the episode", async (raw, code) => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), "pending"],
      rehearse: [raw],
    });
    const ep = await runEpisode(orderTask(), reference(policy));
    expect(ep.endReason).toBe("rehearser_parse_error");
    expect(ep.calls[0]!.parseError).toBe(code);
    expect(policy.callsFor("act")).toHaveLength(1);
    expect(ep.turnScores).toEqual([]);
    // the rehearse row stays: its failure is what the rehearse role's advantage must punish
    expect(ep.rows.map((r) => r.role)).toEqual(["act", "rehearse"]);
  });

  it("a rehearser error_tool_call verdict ends the episode", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), "pending"],
      rehearse: [result({ error_tool_call: { code: "TOOL_EXECUTION_ERROR", message: "no such order" } })],
    });
    const ep = await runEpisode(orderTask(), reference(policy));
    expect(ep.endReason).toBe("rehearser_error_tool_call");
    expect(ep.turnScores).toEqual([]);
  });

  it("a call whose rehearsal failed is not a call that was made (retry mode): rules do not see it", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), "It is pending."],
      rehearse: ["garbage"],
    });
    const task = orderTask({ user_turns: ["Where is order A1?"] });
    const ep = await runEpisode(task, { ...reference(policy), invalidCall: "retry" });
    expect(ep.endReason).toBe("done");
    // "looked up A1" fails (the lookup's rehearsal failed); "said pending" passes: 1 of 2 standards
    expect(ep.turnScores).toEqual([0.5]);
  });

  it("a failed required_for_next_turn standard ends the episode after its (scored) turn", async () => {
    const policy = new ScriptedPolicy({ act: ["I cannot help.", "never asked"] });
    const task = orderTask();
    task.checklists[0]![0]![0]!.required_for_next_turn = true;
    const ep = await runEpisode(task, reference(policy));
    expect(ep.endReason).toBe("required_standard_failed");
    expect(ep.turnScores).toEqual([0]);
    expect(policy.callsFor("act")).toHaveLength(1);
  });

  it("a judge reply that cannot be read ends the episode after its turn (API failures mask instead)", async () => {
    const policy = new ScriptedPolicy({ act: ["It is pending.", "Cancelled."] });
    const task = orderTask({
      checklists: [[[{ question: "polite?" }], [{ question: "confirmed?" }]]],
    });
    const judge: Judge = { judge: async (i) => i.standards.map(() => ({ passed: false, parseError: true })) };
    const ep = await runEpisode(task, reference(policy, { judge }));
    expect(ep.endReason).toBe("judge_malformed");
    expect(ep.masked).toBe(false);
    expect(ep.turnScores).toEqual([0]);
  });

  it("max_assistant_turns counts the whole episode and is checked after each reply", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), "It is pending.", "never reached"],
      rehearse: [result({ status: "pending" })],
    });
    const ep = await runEpisode(orderTask(), reference(policy, { maxAssistantTurns: 2 }));
    // turn 0 used both act calls and is scored; the cap then ends the episode before turn 1
    expect(ep.endReason).toBe("max_assistant_turns");
    expect(ep.turnScores).toEqual([1]);
    expect(policy.callsFor("act")).toHaveLength(2);
  });

  it("per-user-turn counting (option) ends a turn that reaches the cap without a reply", async () => {
    const policy = new ScriptedPolicy({
      act: [call("get_order", { order_id: "A1" }), call("get_order", { order_id: "A1" })],
      rehearse: [result({ status: "pending" }), result({ status: "pending" })],
    });
    const ep = await runEpisode(
      orderTask(),
      reference(policy, { maxAssistantTurns: 2, turnLimitScope: "user_turn" }),
    );
    expect(ep.endReason).toBe("max_assistant_turns");
    expect(ep.turnScores).toEqual([]);
  });

  it("max_parallel_calls ends episodes only when set", async () => {
    const three = [1, 2, 3].map(() => call("get_order", { order_id: "A1" })).join("\n");
    const rehearse = [1, 2, 3].map(() => result({ status: "pending" }));
    const unset = new ScriptedPolicy({ act: [three, "It is pending."], rehearse });
    expect((await runEpisode(orderTask({ user_turns: ["?"] }), reference(unset))).endReason).toBe("done");
    const set = new ScriptedPolicy({ act: [three, "It is pending."], rehearse });
    const ep = await runEpisode(orderTask({ user_turns: ["?"] }), reference(set, { maxParallelCalls: 2 }));
    expect(ep.endReason).toBe("max_parallel_calls");
  });

  it("a turn that never replies ends at the micro-step cap (reference: 200 env steps)", async () => {
    const lookup = call("get_order", { order_id: "A1" });
    const policy = new ScriptedPolicy({
      act: Array.from({ length: 10 }, () => lookup),
      rehearse: Array.from({ length: 10 }, () => result({ status: "pending" })),
    });
    const ep = await runEpisode(orderTask(), reference(policy, { maxSteps: 5 }));
    expect(ep.endReason).toBe("max_steps");
    expect(ep.rows.length).toBeGreaterThanOrEqual(5);
    expect(ep.rows.length).toBeLessThanOrEqual(6);
  });
});
