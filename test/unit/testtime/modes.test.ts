import { describe, expect, it } from "vitest";
import { runEpisodeWithRehearsal, type RehearsalOptions } from "../../../src/testtime/index.js";
import { CountingEnvironment, ScriptedPolicy } from "../../../src/testing/index.js";
import {
  goodActor,
  goodRehearser,
  hasNote,
  isCommitted,
  isSummary,
  orderTask,
  OrderEnv,
  systemOf,
} from "./fixtures.js";

function policy(extra: { summary?: string } = {}) {
  return new ScriptedPolicy({
    act: [(r) => (isSummary(r) ? (extra.summary ?? "NOTE: look up A1, then answer.") : goodActor(r))],
    rehearse: [goodRehearser],
    repeatLast: true,
  });
}

async function run(rehearsal: RehearsalOptions, p = policy()) {
  const envs: CountingEnvironment[] = [];
  const ep = await runEpisodeWithRehearsal(orderTask(), {
    policy: p,
    envFactory: () => {
      const env = new CountingEnvironment(new OrderEnv());
      envs.push(env);
      return env;
    },
    rehearsal: { promptVariant: "compact", ...rehearsal },
  });
  return { ep, env: envs[0]!, p };
}

describe("runEpisodeWithRehearsal: exact calls per mode and N", () => {
  // Per attempt from a user message: act (call), rehearse, act (reply). Committed turn: act, real call, act.
  it.each([
    ["parallel", 1],
    ["parallel", 3],
    ["sequential", 1],
    ["sequential", 4],
  ] as const)("%s:%i with digest memory, scope turn", async (mode, n) => {
    const { ep, env, p } = await run({ mode, n, memory: "digest" });
    expect(ep.success).toBe(true);
    expect(ep.replies).toEqual(["Order A1 is pending.", "Done, A1 is cancelled."]);
    // 2 user turns × (N attempts × 2 act + 2 committed act)
    expect(p.callsFor("act")).toHaveLength(2 * (2 * n + 2));
    expect(p.callsFor("rehearse")).toHaveLength(2 * n);
    expect(p.callsFor("act").filter((c) => isCommitted(c.request))).toHaveLength(4);
    expect(ep.rehearsal).toMatchObject({
      mode,
      n,
      phases: 2,
      attempts: 2 * n,
      calls: { act: 4 * n, rehearse: 2 * n, summary: 0, guard: 0, rewrite: 0 },
      attemptEnds: { replied: 2 * n },
      realCallsDuringRehearsal: 0,
    });
    expect(ep.rehearsal.tokens.total).toBe(ep.rehearsal.tokens.prompt + ep.rehearsal.tokens.completion);
    expect(ep.rehearsal.tokens.completion).toBeGreaterThan(0);
    expect(env.log.map((c) => c.name)).toEqual(["get_order", "cancel_order"]);
    expect(ep.envCalls).toBe(2);
  });

  it("summary memory adds one summary call per rehearsal", async () => {
    const { ep, p } = await run({ mode: "parallel", n: 2, memory: "summary" });
    expect(p.callsFor("act").filter((c) => isSummary(c.request))).toHaveLength(2);
    expect(ep.rehearsal.calls).toEqual({ act: 8, rehearse: 4, summary: 2, guard: 0, rewrite: 0 });
    expect(ep.rehearsal.summaryFallbacks).toBe(0);
  });

  it("scope action rehearses before every committed act call", async () => {
    const n = 2;
    const { ep, p } = await run({ mode: "parallel", n, scope: "action" });
    // per turn: before step 0, N × (act, rehearse, act); before step 1 (after the real result), N × act (reply); 2 committed acts
    expect(ep.rehearsal.phases).toBe(4);
    expect(p.callsFor("act")).toHaveLength(2 * (3 * n + 2));
    expect(p.callsFor("rehearse")).toHaveLength(2 * n);
    expect(ep.success).toBe(true);
    // the second rehearsal of turn 0 starts from the real tool result
    const midTurn = ep.rehearsals[1]!;
    expect(midTurn).toMatchObject({ turn: 0, step: 1 });
    expect(
      midTurn.rehearsal.attempts.every((a) => a.calls.length === 0 && a.reply === "Order A1 is pending."),
    ).toBe(true);
  });

  it("mode none never rehearses and adds no note", async () => {
    const { ep, p } = await run({ mode: "none" });
    expect(p.callsFor("rehearse")).toHaveLength(0);
    expect(p.callsFor("act").some((c) => hasNote(c.request))).toBe(false);
    expect(p.callsFor("act")).toHaveLength(4);
    expect(ep.rehearsal).toMatchObject({ n: 0, phases: 0, attempts: 0 });
  });
});

describe("rehearsal memory", () => {
  it("the digest reaches the committed actor's system message, not the recorded conversation", async () => {
    const { ep, p } = await run({ mode: "parallel", n: 2, memory: "digest" });
    const committed = p.callsFor("act").filter((c) => isCommitted(c.request));
    const sys = systemOf(committed[0]!.request);
    expect(sys.startsWith("You are a retail agent.\n\n# Private rehearsal notes")).toBe(true);
    expect(sys).toContain('- get_order {"order_id":"A1"} -> {"order_id":"A1","status":"pending"}');
    expect(sys).toContain("Attempt 2 (replied to the user):");
    expect(sys).toContain("- reply: Order A1 is pending.");
    // turn 2's committed calls carry turn 2's rehearsal (the cancel)
    expect(systemOf(committed[2]!.request)).toContain("cancel_order");
    expect(ep.messages[0]).toEqual({ role: "system", content: "You are a retail agent." });
    expect(ep.messages.some((m) => m.content.includes("Private rehearsal"))).toBe(false);
  });

  it("the policy's own summary is the memory with --memory summary", async () => {
    const { ep, p } = await run(
      { mode: "sequential", n: 2, memory: "summary" },
      policy({ summary: "<think>hm</think>NOTE-XYZ: call get_order A1" }),
    );
    const committed = p.callsFor("act").filter((c) => isCommitted(c.request));
    expect(systemOf(committed[0]!.request)).toContain("NOTE-XYZ: call get_order A1");
    expect(systemOf(committed[0]!.request)).not.toContain("<think>");
    expect(ep.rehearsals[0]!.rehearsal.memory).toBe("NOTE-XYZ: call get_order A1");
    // the summarizer saw the attempts' digest
    const sumReq = p.callsFor("act").find((c) => isSummary(c.request))!.request;
    expect(sumReq.messages[1]!.content).toContain("Where is order A1?");
    expect(sumReq.messages[1]!.content).toContain('get_order {"order_id":"A1"}');
  });

  it("an empty summary falls back to the digest", async () => {
    const { ep, p } = await run({ mode: "parallel", n: 1, memory: "summary" }, policy({ summary: "   " }));
    expect(ep.rehearsal.summaryFallbacks).toBe(2);
    const committed = p.callsFor("act").filter((c) => isCommitted(c.request));
    expect(systemOf(committed[0]!.request)).toContain("Attempt 1 (replied to the user):");
  });
});

describe("sequential rehearsal", () => {
  it("each attempt sees its predecessors and is asked to revise; parallel attempts see none", async () => {
    let k = 0;
    const p = new ScriptedPolicy({
      act: [goodActor],
      rehearse: [
        () =>
          `<execution_result>\n${JSON.stringify({ status: "pending", imagined: k++ })}\n</execution_result>`,
      ],
      repeatLast: true,
    });
    const { p: used } = await run({ mode: "sequential", n: 3 }, p);
    const firstActs = used
      .callsFor("act")
      .filter((c) => !isCommitted(c.request) && c.request.messages.at(-1)!.role === "user")
      .slice(0, 3);
    expect(hasNote(firstActs[0]!.request)).toBe(false);
    expect(systemOf(firstActs[1]!.request)).toContain("attempt 2 of 3");
    expect(systemOf(firstActs[1]!.request)).toContain('"imagined":0');
    expect(systemOf(firstActs[2]!.request)).toContain("attempt 3 of 3");
    expect(systemOf(firstActs[2]!.request)).toContain('"imagined":0');
    expect(systemOf(firstActs[2]!.request)).toContain('"imagined":1');

    const par = await run({ mode: "parallel", n: 3 });
    const parFirst = par.p
      .callsFor("act")
      .filter((c) => !isCommitted(c.request))
      .slice(0, 6);
    expect(parFirst.some((c) => hasNote(c.request))).toBe(false);
  });
});
