import { describe, expect, it } from "vitest";
import { resolveDataDir } from "../../../src/bench/data-dir.js";
import { guardTau2, RehearsingTau2Agent } from "../../../src/bench/tau2/rehearsal-agent.js";
import { runTau2 } from "../../../src/bench/tau2/run-tau2.js";
import type { Tau2Message } from "../../../src/bench/tau2/types.js";
import type { Tau2UserReply, Tau2UserSimulator } from "../../../src/bench/tau2/user-simulator.js";
import type { ChatRequest } from "../../../src/core/model.js";
import { loadTau2Domain } from "../../../src/envs/tau2/index.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { RehearsalPhase } from "../../../src/testtime/phase-guard.js";
import { call, result } from "../rollout/fixtures.js";

const TASK = "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]";

/** A user who reports the problem, then fixes the phone with its own tools and stops. */
function fixingUser(): Tau2UserSimulator {
  return {
    name: "fixing-user",
    start() {
      let k = 0;
      const script = [
        { content: "My mobile data does not work." },
        { content: "", toolCalls: [{ id: "u1", name: "toggle_airplane_mode", arguments: {} }] },
        { content: "", toolCalls: [{ id: "u2", name: "toggle_data", arguments: {} }] },
        { content: "Done." },
        { content: "Thanks ###STOP###" },
      ];
      return { next: async () => script[Math.min(k++, script.length - 1)]! };
    },
  };
}

describe("test-time rehearsal on tau2:telecom", () => {
  it("without an imagined user, rehearses the agent's side only: no agent or user tool runs while rehearsing, the user's own calls do", async () => {
    const domain = loadTau2Domain("telecom", resolveDataDir());
    const one = { ...domain, tasks: domain.tasks.filter((t) => t.id === TASK), defaultSplit: undefined };
    const policy = new ScriptedPolicy({
      act: [
        (r) => {
          const last = r.messages[r.messages.length - 1]!;
          if (r.messages[0]!.content.startsWith("You review")) return "NOTE";
          if (last.role === "user" && last.content.includes("does not work"))
            return call("get_customer_by_phone", { phone_number: "555-123-2002" });
          return last.role === "tool"
            ? "Please turn airplane mode off and mobile data on."
            : "Glad it works.";
        },
      ],
      rehearse: [result({ customer_id: "C1001" })],
      repeatLast: true,
    });
    const guarded = guardTau2(one, fixingUser());
    const agent = new RehearsingTau2Agent(policy, {
      rehearsal: { mode: "parallel", n: 2, memory: "digest", promptVariant: "compact" },
      phaseFor: guarded.phaseFor,
    });
    const summary = await runTau2({
      bench: "tau2:telecom",
      domain: guarded.domain,
      agent,
      user: guarded.user,
    });
    expect(summary.results[0]).toMatchObject({ task_id: TASK, reward: 1, termination: "user_stop" });
    const [s] = agent.sessions;
    expect(s!.phase.realCalls).toBe(0);
    expect(s!.phase.userCalls).toBe(0);
    expect(s!.phase.committedCalls).toBe(1); // get_customer_by_phone, for real, once
    expect(s!.stats.phases).toBeGreaterThan(0);
  });
});

/**
 * A user who answers from the conversation alone (so that an imagined session, started afresh,
 * acts as the real one would): reports the problem; told to fix airplane mode and data, toggles
 * both on the phone with its own tools; then says what the phone showed; stops when thanked.
 * Every session records the tool results it was shown.
 */
function phoneUser(): Tau2UserSimulator & { sessions: string[][] } {
  const sessions: string[][] = [];
  return {
    name: "phone-user",
    sessions,
    start() {
      const seen: string[] = [];
      sessions.push(seen);
      return {
        next: async (history: readonly Tau2Message[]): Promise<Tau2UserReply> => {
          const last = history[history.length - 1]!;
          if (last.role === "tool" && last.requestor === "user") {
            seen.push(last.content);
            if (last.name === "toggle_airplane_mode")
              return { content: "", toolCalls: [{ id: "u1", name: "toggle_data", arguments: {} }] };
            return { content: `Done. My phone says: ${last.content}` };
          }
          if (last.role === "assistant" && last.content.includes("airplane mode off"))
            return { content: "", toolCalls: [{ id: "u0", name: "toggle_airplane_mode", arguments: {} }] };
          if (last.role === "assistant" && last.content.includes("Glad"))
            return { content: "Thanks ###STOP###" };
          return { content: "My mobile data does not work." };
        },
      };
    },
  };
}

const IMAGINED_AIRPLANE = { airplane_mode: "OFF", imagined: "phone-1" };
const IMAGINED_DATA = { mobile_data: "ON", imagined: "phone-2" };

/** The agent's side: look the customer up, instruct the user, thank them once they are done. */
function telecomPolicy(): ScriptedPolicy {
  const lastOf = (r: ChatRequest) => r.messages[r.messages.length - 1]!;
  return new ScriptedPolicy({
    act: [
      (r) => {
        const last = lastOf(r);
        if (last.role === "user" && last.content.includes("does not work"))
          return call("get_customer_by_phone", { phone_number: "555-123-2002" });
        if (last.role === "tool") return "Please turn airplane mode off and mobile data on.";
        return "Glad it works.";
      },
    ],
    // the rehearser: each tool by name, the phone's two as well
    rules: [
      { role: "rehearse", match: /- name: toggle_airplane_mode\n/, output: result(IMAGINED_AIRPLANE) },
      { role: "rehearse", match: /- name: toggle_data\n/, output: result(IMAGINED_DATA) },
      {
        role: "rehearse",
        match: /- name: get_customer_by_phone\n/,
        output: result({ customer_id: "C1001" }),
      },
    ],
    repeatLast: true,
  });
}

describe("test-time rehearsal on tau2:telecom with an imagined user (dual control)", () => {
  const run = async (userReplies: number) => {
    const domain = loadTau2Domain("telecom", resolveDataDir());
    const one = { ...domain, tasks: domain.tasks.filter((t) => t.id === TASK), defaultSplit: undefined };
    const policy = telecomPolicy();
    const user = phoneUser();
    const guarded = guardTau2(one, user);
    const agent = new RehearsingTau2Agent(policy, {
      rehearsal: { mode: "parallel", n: 2, memory: "digest", promptVariant: "full", userReplies },
      phaseFor: guarded.phaseFor,
      imaginedUser: { simulator: user, userTools: guarded.userToolsFor },
    });
    const summary = await runTau2({
      bench: "tau2:telecom",
      domain: guarded.domain,
      agent,
      user: guarded.user,
    });
    return { summary, session: agent.sessions[0]!, user, policy };
  };

  it("an attempt goes on past the reply: the user's phone tools are rehearsed, none runs for real until the committed run", async () => {
    const { summary, session, user, policy } = await run(2);
    // the committed run fixed the real phone: the env assertions on the user's device pass
    expect(summary.results[0]).toMatchObject({ task_id: TASK, reward: 1, termination: "user_stop" });
    expect(summary.results[0]!.components.ENV_ASSERTION?.status).toBe("passed");

    // the first rehearsal (the user's report): each attempt looked the customer up, replied, then the
    // imagined user toggled airplane mode and data, answered the agent, was thanked and stopped
    const first = session.rehearsals[0]!;
    expect(first.attempts).toHaveLength(2);
    for (const a of first.attempts) {
      expect(a.end).toBe("user_stop");
      expect(a.turns!.map((t) => t.side)).toEqual(["agent", "user", "agent", "user"]);
      const userCalls = a.turns![1]!.calls;
      expect(userCalls.map((c) => [c.call.name, c.source, JSON.parse(c.result)])).toEqual([
        ["toggle_airplane_mode", "rehearsal", IMAGINED_AIRPLANE],
        ["toggle_data", "rehearsal", IMAGINED_DATA],
      ]);
      expect(a.turns![1]!.text).toBe(`Done. My phone says: ${JSON.stringify(IMAGINED_DATA)}`);
      expect(a.calls.map((c) => c.call.name)).toEqual(["get_customer_by_phone"]); // the agent's own
    }
    // the rehearser played the phone with the user's 30 tool schemas as its candidates (not the
    // agent's), and saw the conversation from the user's side: the agent's instruction, not its lookup
    const phone = policy
      .callsFor("rehearse")
      .map((c) => c.request.messages[1]!.content)
      .find((p) => p.includes("- name: toggle_airplane_mode\n"))!;
    const candidates = JSON.parse(
      phone.slice(phone.indexOf("\n") + 1, phone.indexOf("\n\nPrevious tool calls")),
    ) as { name: string }[];
    expect(candidates).toHaveLength(30);
    expect(candidates.map((t) => t.name)).toContain("check_status_bar");
    expect(candidates.map((t) => t.name)).not.toContain("get_customer_by_phone");
    expect(phone).toContain("User: Please turn airplane mode off and mobile data on.");
    expect(phone).not.toContain("C1001");
    // the committed actor's memory carries the imagined phone results
    expect(first.note).toContain(
      `user (imagined) calls toggle_airplane_mode {} -> ${JSON.stringify(IMAGINED_AIRPLANE)}`,
    );
    expect(first.note).toContain("the imagined user ended the conversation");

    // the guard: no real tool of either side ran while rehearsing, the real user session was not asked
    expect(session.phase.realCalls).toBe(0);
    expect(session.phase.userCalls).toBe(0);
    expect(session.stats.realCallsDuringRehearsal).toBe(0);
    // the committed run: the agent's lookup and the user's two toggles, for real
    expect(session.phase.committedCalls).toBe(1);
    expect(session.phase.committedUserCalls).toBe(2);
    // the real user session (started first) saw the real device's answers; imagined ones only the rehearser's
    const [real, ...imagined] = user.sessions;
    expect(real).toHaveLength(2);
    expect(real![0]).toMatch(/^Airplane Mode is now OFF\.\nStatus Bar: /);
    expect(real![1]).toMatch(/^Mobile Data is now ON\.\nStatus Bar: /);
    expect(imagined.length).toBe(session.stats.attempts);
    expect(imagined.flat()).toContain(JSON.stringify(IMAGINED_AIRPLANE));
    expect(imagined.flat().some((t) => t.includes("Status Bar"))).toBe(false);
    expect(session.stats.imaginedUserCalls).toBeGreaterThan(0);
  });

  it("with no imagined user replies an attempt ends at the agent's reply and no user session is started for it", async () => {
    const { summary, session, user } = await run(0);
    expect(summary.results[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    for (const r of session.rehearsals) for (const a of r.attempts) expect(a.turns).toBeUndefined();
    expect(user.sessions).toHaveLength(1); // the real one
    expect(session.stats.imaginedUserCalls).toBe(0);
    expect(session.phase).toMatchObject({
      realCalls: 0,
      userCalls: 0,
      committedCalls: 1,
      committedUserCalls: 2,
    });
  });

  it("the guard refuses and counts either side's real tool call while a rehearsal runs", async () => {
    const domain = loadTau2Domain("telecom", resolveDataDir());
    const guarded = guardTau2(domain, phoneUser());
    const env = guarded.domain.createEnv(domain.tasks.find((t) => t.id === TASK));
    const phase: RehearsalPhase = guarded.phaseFor();
    const before = JSON.stringify(env.dumpUserDb!());
    await phase.run(async () => {
      const user = env.callSync!({ name: "toggle_airplane_mode", arguments: {} }, "user");
      const agent = await env.call({
        id: "c",
        name: "get_customer_by_phone",
        arguments: { phone_number: "555-123-2002" },
      });
      for (const r of [user, agent])
        expect(r).toMatchObject({ ok: false, error: { code: "REAL_CALL_DURING_REHEARSAL" } });
    });
    expect(JSON.stringify(env.dumpUserDb!())).toBe(before); // the phone did not change
    expect(phase).toMatchObject({ realCalls: 2, committedCalls: 0, committedUserCalls: 0 });
    // outside the phase the same calls run
    expect(env.callSync!({ name: "toggle_airplane_mode", arguments: {} }, "user")).toMatchObject({
      ok: true,
    });
    expect(JSON.stringify(env.dumpUserDb!())).not.toBe(before);
    expect(phase).toMatchObject({ realCalls: 2, committedUserCalls: 1 });
    expect(guarded.userToolsFor().map((t) => t.name)).toContain("toggle_airplane_mode");
  });
});
