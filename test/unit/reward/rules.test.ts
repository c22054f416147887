import { describe, expect, it } from "vitest";
import { TaskZ } from "../../../src/core/task.js";
import {
  checkRule,
  episodeReward,
  scoreEpisode,
  scoreRules,
  weightedScore,
} from "../../../src/reward/index.js";
import type { ToolCall } from "../../../src/core/messages.js";

const c = (name: string, args: Record<string, unknown> = {}): ToolCall => ({
  id: "x",
  name,
  arguments: args,
});

describe("checkRule (hand table)", () => {
  const calls = [c("get_order", { order_id: "A1", opts: { deep: [1, 2] } }), c("refund", { amount: 5 })];
  const replies = ["Looking it up.", "Order A1 is pending, total $5."];
  it.each([
    [{ call: "get_order" }, true],
    [{ call: "get_order", args: { order_id: "A1" } }, true],
    [{ call: "get_order", args: { opts: { deep: [1, 2] } } }, true],
    [{ call: "get_order", args: { opts: { deep: [2, 1] } } }, false],
    [{ call: "get_order", args: { order_id: "A2" } }, false],
    [{ call: "get_order", args: { missing: null } }, false],
    [{ call: "cancel" }, false],
    [{ forbid: "cancel" }, true],
    [{ forbid: "refund" }, false],
    [{ forbid: "refund", args: { amount: 6 } }, true],
    [{ forbid: "refund", args: { amount: 5 } }, false],
    [{ reply_contains: ["pending", "$5"] }, true],
    [{ reply_contains: ["Looking", "pending"] }, false], // must hold within one step's text
    [{ reply_contains: ["cancelled"] }, false],
  ])("%j → %s", (rule, expected) => {
    expect(checkRule(rule as never, calls, replies)).toBe(expected);
  });

  it("reply_contains matches whole words: 30 is not in 130 or o30, cancel is not in cancelled", () => {
    expect(checkRule({ reply_contains: ["30"] }, [], ["the total is 130, order o30."])).toBe(false);
    expect(checkRule({ reply_contains: ["30"] }, [], ["the total is 30."])).toBe(true);
    expect(checkRule({ reply_contains: ["cancel"] }, [], ["it is cancelled"])).toBe(false);
    expect(checkRule({ reply_contains: ["not found"] }, [], ["sorry, o9 was not found."])).toBe(true);
  });

  it("reply_excludes: a reply that also states a contradicting value fails (hedging)", () => {
    const rule = { reply_contains: ["pending"], reply_excludes: ["shipped", "delivered", "cancelled"] };
    expect(checkRule(rule, [], ["order o3 is pending."])).toBe(true);
    expect(checkRule(rule, [], ["order o3 is pending, shipped, delivered or cancelled."])).toBe(false);
    // The contradiction counts in any step of the turn, not only the one stating the fact.
    expect(checkRule(rule, [], ["it might be shipped", "order o3 is pending."])).toBe(false);
    // Whole words: "shipped" is not excluded by a longer word.
    expect(checkRule(rule, [], ["order o3 is pending (unshipped)."])).toBe(true);
  });

  it("forbid holds vacuously with no calls; reply_contains fails with no replies", () => {
    expect(checkRule({ forbid: "x" }, [], [])).toBe(true);
    expect(checkRule({ reply_contains: ["a"] }, [], [])).toBe(false);
  });
});

const task = TaskZ.parse({
  id: "t",
  domain: "d",
  tools: [],
  user_turns: ["u0", "u1"],
  checklists: [
    [
      [
        { question: "a", weight: 1, rule: { call: "f" } },
        { question: "b", weight: 3, rule: { reply_contains: ["ok"] } },
      ],
      [{ question: "c", rule: { forbid: "g" } }],
    ],
    [[{ question: "d", rule: { call: "h" } }], []],
  ],
});

describe("scoreRules and aggregation", () => {
  it("verdicts per [checklist][turn][standard]; unreached turns undefined", () => {
    expect(scoreRules(task, [[c("f")]], [["ok"]])).toEqual([
      [[true, true], [undefined]],
      [[false], []],
    ]);
    expect(scoreRules(task, [[c("h")], [c("g")]], [["no"], [""]])).toEqual([
      [[false, false], [false]],
      [[true], []],
    ]);
  });

  it("weights normalise per (checklist, turn); a turn without standards scores 0 (reference); perfect = 1", () => {
    const std = task.checklists[0]![0]!;
    expect(weightedScore(std, [true, false])).toBe(0.25);
    expect(weightedScore(std, [false, true])).toBe(0.75);
    expect(weightedScore([], [])).toBe(0);
    expect(episodeReward(task, [2, 2])).toBe(1);
    expect(episodeReward(task, [1.25, 2])).toBeCloseTo(3.25 / 4);
  });

  it("scoreEpisode: hand-computed reward, unreached turn scores 0", async () => {
    const turn = (calls: ToolCall[], replies: string[]) => ({ before: [], messages: [], calls, replies });
    const full = await scoreEpisode(task, [turn([c("f"), c("h")], ["ok"]), turn([], ["bye"])]);
    // checklist 1 has no standard for turn 1: that checklist scores 0 there (reference), so the
    // best reachable reward is 3/4 although every standard passed
    expect(full).toMatchObject({ turnScores: [2, 1], reward: 0.75, success: true, masked: false });
    // turn 0: checklist0 = 3/4 (reply only), checklist1 = 0; turn 1 never reached
    const part = await scoreEpisode(task, [turn([], ["ok"])]);
    expect(part.turnScores).toEqual([0.75]);
    expect(part.reward).toBeCloseTo(0.75 / 4);
    expect(part.success).toBe(false);
  });
});
