import { describe, expect, it } from "vitest";
import { runTau2 } from "../../../src/bench/tau2/run-tau2.js";
import type { Tau2TaskView } from "../../../src/bench/tau2/types.js";
import type { Tau2UserSimulator } from "../../../src/bench/tau2/user-simulator.js";
import { guardTau2, RehearsingTau2Agent } from "../../../src/bench/tau2/rehearsal-agent.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { fakeDomain, fakeTask } from "../tau2-bench/fake-domain.js";
import { call, result } from "./fixtures.js";

const task = (id: string): Tau2TaskView =>
  fakeTask(id, {
    actions: [{ name: "set_value", arguments: { key: "a", value: 5 } }],
    reward_basis: ["ACTION"],
  });

/** Asks once, then stops; counts every call it gets. */
function countingUser(): Tau2UserSimulator & { calls: number } {
  const u = {
    name: "counting-user",
    calls: 0,
    start() {
      let k = 0;
      return {
        next: async () => {
          u.calls++;
          return { content: k++ === 0 ? "Please set a to 5." : "Thanks ###STOP###" };
        },
      };
    },
  };
  return u;
}

describe("RehearsingTau2Agent in the τ² loop", () => {
  it.each(["parallel", "sequential"] as const)(
    "%s:3 — no env or user call while rehearsing; exactly the committed ones",
    async (mode) => {
      const policy = new ScriptedPolicy({
        act: [
          (r) => {
            const last = r.messages[r.messages.length - 1]!;
            if (r.messages[0]!.content.startsWith("You review")) return "NOTE";
            return last.role === "user" ? call("set_value", { key: "a", value: 5 }) : "Done: a is 5.";
          },
        ],
        rehearse: [result({ ok: true, key: "a" })],
        repeatLast: true,
      });
      const d = fakeDomain([task("t1"), task("t2")]);
      const rawUser = countingUser();
      const guarded = guardTau2(d, rawUser);
      const agent = new RehearsingTau2Agent(policy, {
        rehearsal: { mode, n: 3, memory: "digest", promptVariant: "compact" },
        phaseFor: guarded.phaseFor,
      });
      const summary = await runTau2({
        bench: "tau2:kv",
        domain: guarded.domain,
        agent,
        user: guarded.user,
        concurrency: 2,
      });
      expect(summary.results.map((r) => r.success)).toEqual([true, true]);
      expect(agent.sessions).toHaveLength(2);
      for (const s of agent.sessions) {
        expect(s.phase.realCalls).toBe(0);
        expect(s.phase.userCalls).toBe(0);
        expect(s.phase.committedCalls).toBe(1);
        // one user turn → one rehearsal of 3 attempts (act, rehearse, act each)
        expect(s.stats).toMatchObject({ phases: 1, attempts: 3, calls: { act: 6, rehearse: 3 } });
      }
      // the user simulator was asked exactly twice per episode (the request and the stop)
      expect(rawUser.calls).toBe(4);
      // the episodes' environments (the first two made; the evaluator makes more to replay) saw exactly the committed call
      expect(d.envs.slice(0, 2).map((e) => e.calls.map((c) => c.name))).toEqual([
        ["set_value"],
        ["set_value"],
      ]);
      // the committed actor saw the memory in its system message
      const committed = policy
        .callsFor("act")
        .filter((c) => c.request.messages[0]!.content.includes("Before acting you rehearsed"));
      expect(committed).toHaveLength(4);
    },
  );

  it("--guard-tools: a write the rehearsal saw refused never reaches the τ² environment", async () => {
    const policy = new ScriptedPolicy({
      act: [
        (r) => {
          const last = r.messages[r.messages.length - 1]!;
          if (last.role === "tool") return /error/.test(last.content) ? "Sorry, a is locked." : "Done.";
          return last.role === "user" ? call("set_value", { key: "a", value: 5 }) : "ok";
        },
      ],
      rehearse: [result({ error: "a is locked" })],
      repeatLast: true,
    });
    const d = fakeDomain([task("t1")]);
    const guarded = guardTau2(d, countingUser());
    const agent = new RehearsingTau2Agent(policy, {
      rehearsal: {
        mode: "parallel",
        n: 3,
        memory: "consensus",
        promptVariant: "compact",
        guardTools: ["set_value"],
      },
      phaseFor: guarded.phaseFor,
    });
    await runTau2({ bench: "tau2:kv", domain: guarded.domain, agent, user: guarded.user, concurrency: 1 });
    expect(d.envs[0]!.calls).toEqual([]);
    expect(agent.sessions[0]!.stats.heldCalls).toBe(1);
    expect(agent.sessions[0]!.phase.committedCalls).toBe(0);
  });
});
