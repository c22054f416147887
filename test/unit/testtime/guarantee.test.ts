import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/core/model.js";
import {
  GuardedEnvironment,
  liveTask,
  RehearsalPhase,
  rehearseThenCommit,
  runEpisodeWithRehearsal,
  type RehearsalOptions,
} from "../../../src/testtime/index.js";
import { CountingEnvironment, ScriptedPolicy } from "../../../src/testing/index.js";
import {
  call,
  goodActor,
  goodRehearser,
  isCommitted,
  isSummary,
  orderTask,
  OrderEnv,
  TOOLS,
} from "./fixtures.js";

const MODES: RehearsalOptions[] = [];
for (const mode of ["parallel", "sequential"] as const)
  for (const n of [1, 3])
    for (const memory of ["digest", "summary", "consensus"] as const)
      for (const scope of ["turn", "action"] as const) MODES.push({ mode, n, memory, scope });

describe("no real call and no user while rehearsing", () => {
  it.each(MODES.map((m) => [`${m.mode}:${m.n} ${m.memory} ${m.scope}`, m] as const))(
    "%s",
    async (_name, rehearsal) => {
      // one log of events: every real call must directly follow a committed act call (or another
      // real call of the same act message), never a rehearsal-time model call
      const events: string[] = [];
      const order = new OrderEnv();
      const env = new CountingEnvironment({
        tools: () => order.tools(),
        call: (c) => (events.push("env"), order.call(c)),
        snapshot: () => order.snapshot(),
        hash: () => order.hash(),
      });
      const watch = (r: ChatRequest) => events.push(isCommitted(r) ? "commit" : "rehearsal");
      const p = new ScriptedPolicy({
        act: [(r) => (watch(r), isSummary(r) ? "NOTE" : goodActor(r))],
        rehearse: [(r) => (watch(r), goodRehearser(r))],
        repeatLast: true,
      });
      const ep = await runEpisodeWithRehearsal(orderTask(), {
        policy: p,
        envFactory: () => env,
        rehearsal: { ...rehearsal, promptVariant: "compact" },
      });
      expect(ep.success).toBe(true);
      expect(events.filter((e) => e === "rehearsal").length).toBeGreaterThan(0);
      events.forEach((e, i) => {
        if (e === "env") expect(["commit", "env"]).toContain(events[i - 1]);
      });
      expect(ep.rehearsal.realCallsDuringRehearsal).toBe(0);
      expect(ep.rehearsal.userCallsDuringRehearsal).toBe(0);
      expect(env.log.map((c) => [c.name, c.arguments])).toEqual([
        ["get_order", { order_id: "A1" }],
        ["cancel_order", { order_id: "A1" }],
      ]);
    },
  );

  it("the guard refuses and counts a real call made while a rehearsal phase is active", async () => {
    const inner = new CountingEnvironment(new OrderEnv());
    const phase = new RehearsalPhase();
    const env = new GuardedEnvironment(inner, phase);
    const refused = await phase.run(() =>
      env.call({ id: "x", name: "cancel_order", arguments: { order_id: "A1" } }),
    );
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe("REAL_CALL_DURING_REHEARSAL");
    expect(phase.realCalls).toBe(1);
    expect(inner.calls).toBe(0);
    const real = await env.call({ id: "y", name: "get_order", arguments: { order_id: "A1" } });
    expect(real.ok).toBe(true);
    expect(env.realCalls).toBe(1);
    expect(inner.calls).toBe(1);
  });
});

describe("garbage attempts end within their limits and the committed run proceeds", () => {
  // During rehearsal the actor misbehaves in the given way; the committed actor (memory in context) behaves.
  const garbage: Record<
    string,
    { act: (r: ChatRequest) => string; rehearse: (r: ChatRequest) => string; end: string }
  > = {
    "unparseable tool calls": {
      act: () => '<tool_call>{"name": "get_order", "arguments": {oops</tool_call>',
      rehearse: goodRehearser,
      end: "max_assistant_turns",
    },
    "malformed rehearsed responses": {
      act: goodActor,
      rehearse: () => "<execution_result>{not json</execution_result>",
      end: "replied",
    },
    "an endless tool loop": {
      act: () => call("get_order", { order_id: "A1" }),
      rehearse: goodRehearser,
      end: "max_assistant_turns",
    },
    "a rehearser that rejects every call": {
      act: goodActor,
      rehearse: () =>
        '<execution_result>\n{"error_tool_call": {"code": "INVALID_PARAMETERS", "message": "no"}}\n</execution_result>',
      end: "rehearser_error_tool_call",
    },
    "a model that fails": {
      act: () => {
        throw new Error("boom");
      },
      rehearse: goodRehearser,
      end: "model_error",
    },
  };
  it.each(Object.entries(garbage))("%s", async (_name, g) => {
    const env = new CountingEnvironment(new OrderEnv());
    const p = new ScriptedPolicy({
      act: [(r) => (isCommitted(r) ? goodActor(r) : isSummary(r) ? "NOTE" : g.act(r))],
      rehearse: [g.rehearse],
      repeatLast: true,
    });
    const ep = await runEpisodeWithRehearsal(orderTask(), {
      policy: p,
      envFactory: () => env,
      rehearsal: { mode: "parallel", n: 2, maxStepsPerAttempt: 3, promptVariant: "compact" },
    });
    expect(ep.rehearsal.attempts).toBe(4);
    expect(ep.rehearsal.attemptEnds).toEqual({ [g.end]: 4 });
    expect(p.callsFor("act").filter((c) => !isCommitted(c.request)).length).toBeLessThanOrEqual(4 * 3);
    expect(ep.endReason).toBe("done");
    expect(ep.success).toBe(true);
    expect(env.calls).toBe(2);
  });

  it("a token budget stops rehearsing; later turns commit without it", async () => {
    const env = new CountingEnvironment(new OrderEnv());
    const p = new ScriptedPolicy({ act: [goodActor], rehearse: [goodRehearser], repeatLast: true });
    const ep = await runEpisodeWithRehearsal(orderTask(), {
      policy: p,
      envFactory: () => env,
      rehearsal: { mode: "sequential", n: 5, tokenBudget: 1, promptVariant: "compact" },
    });
    // the first call of the first attempt spends the budget; its next call is refused
    expect(ep.rehearsal.attempts).toBe(1);
    expect(ep.rehearsal.attemptEnds).toEqual({ budget: 1 });
    expect(ep.rehearsal.skipped).toBe(1);
    expect(ep.rehearsal.calls.act).toBe(1);
    expect(ep.success).toBe(true);
    expect(env.calls).toBe(2);
  });

  it("max tokens per attempt clamps each call and cuts the attempt", async () => {
    const p = new ScriptedPolicy({ act: [goodActor], rehearse: [goodRehearser], repeatLast: true });
    const ep = await runEpisodeWithRehearsal(orderTask(), {
      policy: p,
      envFactory: () => new OrderEnv(),
      rehearsal: { mode: "parallel", n: 1, maxTokensPerAttempt: 1, promptVariant: "compact" },
    });
    const rehearsalCalls = p.calls.filter((c) => !isCommitted(c.request));
    expect(rehearsalCalls.every((c) => c.request.maxTokens === 1)).toBe(true);
    expect(ep.rehearsal.attemptEnds).toEqual({ budget: 2 });
    expect(ep.success).toBe(true);
  });
});

describe("rehearseThenCommit on a live conversation", () => {
  it("rehearses, commits once for real, and leaves the environment open", async () => {
    const env = new CountingEnvironment(new OrderEnv());
    const p = new ScriptedPolicy({ act: [goodActor], rehearse: [goodRehearser], repeatLast: true });
    const task = liveTask({ tools: TOOLS, system: "You are a retail agent." });
    const conversation = [
      { role: "system" as const, content: "You are a retail agent." },
      { role: "user" as const, content: "Where is order A1?" },
    ];
    const out = await rehearseThenCommit({
      policy: p,
      task,
      conversation,
      env,
      rehearsal: { mode: "parallel", n: 2, promptVariant: "compact" },
    });
    expect(out.reply).toBe("Order A1 is pending.");
    expect(out.realCalls).toBe(1);
    expect(env.log.map((c) => c.name)).toEqual(["get_order"]);
    expect(out.rehearsals).toHaveLength(1);
    expect(out.stats).toMatchObject({ phases: 1, attempts: 2, realCallsDuringRehearsal: 0 });
    expect(out.messages.map((m) => m.role)).toEqual(["assistant", "tool", "assistant"]);
    // the next turn shares the stats object
    const next = await rehearseThenCommit({
      policy: p,
      task,
      conversation: [...conversation, ...out.messages, { role: "user", content: "Cancel it." }],
      env,
      rehearsal: { mode: "parallel", n: 2, promptVariant: "compact" },
      stats: out.stats,
    });
    expect(next.reply).toBe("Done, A1 is cancelled.");
    expect(next.stats.phases).toBe(2);
    expect(env.log.map((c) => c.name)).toEqual(["get_order", "cancel_order"]);
  });
});
