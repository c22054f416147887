import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/core/model.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import type { ToolCallRecord } from "../../../src/rollout/types.js";
import { promptTokenCount } from "../../../src/rollout/rows.js";
import { commitGuard, committedActor, guardedActor } from "../../../src/testtime/commit-guard.js";
import { rehearseThenCommit, runEpisodeWithRehearsal } from "../../../src/testtime/index.js";
import {
  emptyRehearsalStats,
  rehearsalCallCount,
  type RehearsalAttempt,
  type RehearsalOptions,
} from "../../../src/testtime/types.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { call, isCommitted, OrderEnv, result, TOOLS } from "./fixtures.js";

const record = (name: string, res: string): ToolCallRecord => ({
  turn: 0,
  call: { id: "c", name, arguments: { order_id: "A1" } },
  result: res,
  ok: true,
  source: "rehearsal",
});
const lookup = () => record("get_order", '{"order_id":"A1","status":"shipped"}');
const lookupNo = () => record("get_order", '{"error":"order A1 not found"}');
const cancelNo = () => record("cancel_order", '{"error":"order A1 has shipped"}');
const cancelOk = () => record("cancel_order", '{"order_id":"A1","status":"cancelled"}');
const attempt = (index: number, calls: ToolCallRecord[], reply?: string): RehearsalAttempt => ({
  index,
  end: "replied",
  calls,
  ...(reply ? { reply } : {}),
});
const CANCEL = 'cancel_order{"order_id":"A1"}';

describe("commitGuard: what a rehearsal tells the committed run not to do", () => {
  it("holds back the guarded tools' calls refused in most attempts that made them, with the plan's reply", () => {
    const g = commitGuard(
      [
        attempt(0, [lookup(), cancelNo()], "A1 has shipped, it cannot be cancelled."),
        attempt(1, [lookup(), cancelNo()], "Sorry, A1 has shipped."),
        attempt(2, [lookup(), cancelOk()], "Done."),
      ],
      new Set(["cancel_order"]),
    );
    expect([...g.refused.keys()]).toEqual([CANCEL]);
    expect(g.refused.get(CANCEL)?.result).toBe('{"error":"order A1 has shipped"}');
    expect(g.reply).toBe("A1 has shipped, it cannot be cancelled.");
  });

  it("leaves reads, calls most attempts saw go through, and unguarded tools alone", () => {
    const tools = new Set(["cancel_order"]);
    // a refused read is not guarded: it changes nothing and its real answer is better evidence
    expect(commitGuard([attempt(0, [lookupNo()]), attempt(1, [lookupNo()])], tools).refused.size).toBe(0);
    expect(
      commitGuard([attempt(0, [cancelNo()]), attempt(1, [cancelOk()]), attempt(2, [cancelOk()])], tools)
        .refused.size,
    ).toBe(0);
    expect(commitGuard([attempt(0, [cancelNo()])], new Set(["refund"])).refused.size).toBe(0);
  });
});

const lastOf = (r: ChatRequest) => r.messages[r.messages.length - 1]!;

describe("guardedActor", () => {
  const guard = () =>
    commitGuard([attempt(0, [lookup(), cancelNo()], "It has shipped.")], new Set(["cancel_order"]));

  it("shows the actor the imagined refusal and commits what it says next", async () => {
    const p = new ScriptedPolicy({
      act: [
        (r) =>
          lastOf(r).role === "tool" ? "Sorry, A1 has shipped." : call("cancel_order", { order_id: "A1" }),
      ],
      repeatLast: true,
    });
    const held: string[] = [];
    const actor = guardedActor(p, { current: guard, onHeld: (cs) => held.push(...cs.map((c) => c.name)) });
    const out = await actor.chat({ messages: [{ role: "user", content: "Cancel A1." }] });
    expect(out.samples[0]?.text).toBe("Sorry, A1 has shipped.");
    expect(held).toEqual(["cancel_order"]);
    const second = p.calls[1]!.request.messages;
    expect(second.slice(1).map((m) => m.role)).toEqual(["assistant", "tool"]);
    expect(second[2]?.content).toBe('{"error":"order A1 has shipped"}');
  });

  it("commits the rehearsal's reply for an actor that insists, and lets the call through without one", async () => {
    const insist = () =>
      new ScriptedPolicy({ act: [call("cancel_order", { order_id: "A1" })], repeatLast: true });
    let fallbacks = 0;
    let held = 0;
    const asks: ChatRequest[] = [];
    const p = insist();
    const out = await guardedActor(p, {
      current: guard,
      onFallback: () => fallbacks++,
      onHeld: (cs) => (held += cs.length),
      onAsk: (request) => asks.push(request),
    }).chat({
      messages: [{ role: "user", content: "Cancel A1." }],
    });
    expect(out.samples[0]?.text).toBe("It has shipped.");
    expect(fallbacks).toBe(1);
    expect(p.calls).toHaveLength(3); // the first output and two asks again
    expect(held).toBe(1); // one call held, however often the actor insisted
    // the asks again, not the first output (which the committed run makes anyway), are reported
    expect(asks.map((r) => r.messages)).toEqual(p.calls.slice(1).map((c) => c.request.messages));
    const noReply = commitGuard([attempt(0, [cancelNo()])], new Set(["cancel_order"]));
    const through = await guardedActor(insist(), { current: () => noReply }).chat({
      messages: [{ role: "user", content: "Cancel A1." }],
    });
    expect(through.samples[0]?.text).toContain("cancel_order");
  });
});

function cancelTask(): Task {
  return TaskZ.parse({
    id: "cancel-1",
    domain: "retail",
    system: "You are a retail agent.",
    tools: TOOLS,
    user_turns: ["Cancel order A1."],
    checklists: [[[{ question: "did not cancel", rule: { forbid: "cancel_order" } }]]],
  });
}

/** Every attempt imagines the cancel refused; the committed actor cancels, and after a refusal says so. */
function policy(): ScriptedPolicy {
  return new ScriptedPolicy({
    act: [
      (r) => {
        const last = lastOf(r);
        if (last.role === "tool")
          return /error/.test(last.content) ? "Sorry, A1 cannot be cancelled." : "Done.";
        return call("cancel_order", { order_id: "A1" });
      },
    ],
    rehearse: [result({ error: "order A1 has shipped" })],
    repeatLast: true,
  });
}

const rehearsal = (guardTools?: string[]): RehearsalOptions => ({
  mode: "parallel",
  n: 3,
  memory: "consensus",
  promptVariant: "compact",
  ...(guardTools ? { guardTools } : {}),
});

describe("committedActor", () => {
  it("counts the guard's asks again as rehearsal calls and tokens, and only them", async () => {
    const stats = emptyRehearsalStats(rehearsal(["cancel_order"]));
    const p = policy();
    const { actor, observe } = committedActor(p, rehearsal(["cancel_order"]), stats);
    observe({ attempts: [attempt(0, [lookup(), cancelNo()], "It has shipped.")] });
    const out = await actor.chat({ messages: [{ role: "user", content: "Cancel A1." }] });
    expect(out.samples[0]?.text).toBe("Sorry, A1 cannot be cancelled.");
    expect(p.calls).toHaveLength(2);
    const ask = p.calls[1]!;
    const res = await p.chat(ask.request); // the scripted answer is a function of the request
    const completion = res.samples[0]!.tokenIds!.length;
    const prompt = promptTokenCount(res, ask.request.messages);
    expect(prompt).toBeGreaterThan(0);
    expect(stats.calls).toEqual({ act: 0, rehearse: 0, summary: 0, guard: 1, rewrite: 0 });
    expect(stats.tokens).toEqual({ prompt, completion, total: prompt + completion });
    expect(rehearsalCallCount(stats)).toBe(1);
  });

  it("counts nothing when no call is held", async () => {
    const stats = emptyRehearsalStats(rehearsal(["cancel_order"]));
    const { actor } = committedActor(policy(), rehearsal(["cancel_order"]), stats);
    await actor.chat({ messages: [{ role: "user", content: "Cancel A1." }] });
    expect(stats.calls.guard).toBe(0);
    expect(stats.tokens.total).toBe(0);
  });

  it("gives back the latest rehearsal's note, with or without a guard, and none under mode none", () => {
    for (const guardTools of [undefined, ["cancel_order"]]) {
      const commit = committedActor(policy(), rehearsal(guardTools), emptyRehearsalStats(rehearsal()));
      expect(commit.note()).toBeUndefined();
      commit.observe({ attempts: [], note: "first" });
      commit.observe({ attempts: [], note: "A1 has shipped: do not cancel." });
      expect(commit.note()).toBe("A1 has shipped: do not cancel.");
    }
    const none = committedActor(policy(), { mode: "none" }, emptyRehearsalStats({ mode: "none" }));
    none.observe({ attempts: [], note: "ignored" });
    expect(none.note()).toBeUndefined();
  });
});

describe("the commit guard in a rehearsed episode", () => {
  it("keeps a write the rehearsal saw refused from the real environment", async () => {
    const env = new OrderEnv();
    const p = policy();
    const ep = await runEpisodeWithRehearsal(cancelTask(), {
      policy: p,
      envFactory: () => env,
      rehearsal: rehearsal(["cancel_order"]),
    });
    expect(env.orders.A1).toBe("pending");
    expect(ep.calls).toEqual([]);
    expect(ep.success).toBe(true);
    expect(ep.replies).toEqual(["Sorry, A1 cannot be cancelled."]);
    expect(ep.rehearsal.heldCalls).toBe(1);
    expect(ep.rehearsal.calls.guard).toBe(1);
    // the actor was asked again with the refusal the rehearsal imagined, not a real one
    const asked = p
      .callsFor("act")
      .filter((c) => isCommitted(c.request) && lastOf(c.request).role === "tool");
    expect(asked.map((c) => lastOf(c.request).content)).toEqual(['{"error":"order A1 has shipped"}']);
  });

  it("changes nothing without guardTools: the write is made", async () => {
    const env = new OrderEnv();
    const ep = await runEpisodeWithRehearsal(cancelTask(), {
      policy: policy(),
      envFactory: () => env,
      rehearsal: rehearsal(),
    });
    expect(env.orders.A1).toBe("cancelled");
    expect(ep.success).toBe(false);
    expect(ep.rehearsal.heldCalls).toBe(0);
  });

  it("guards a live turn too (rehearseThenCommit)", async () => {
    const env = new OrderEnv();
    const turn = await rehearseThenCommit({
      policy: policy(),
      task: cancelTask(),
      conversation: [{ role: "user", content: "Cancel order A1." }],
      env,
      rehearsal: rehearsal(["cancel_order"]),
    });
    expect(env.orders.A1).toBe("pending");
    expect(turn.realCalls).toBe(0);
    expect(turn.reply).toBe("Sorry, A1 cannot be cancelled.");
    expect(turn.stats.heldCalls).toBe(1);
  });
});
