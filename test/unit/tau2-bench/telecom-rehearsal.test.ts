import { describe, expect, it } from "vitest";
import { resolveDataDir } from "../../../src/bench/data-dir.js";
import { guardTau2, RehearsingTau2Agent } from "../../../src/bench/tau2/rehearsal-agent.js";
import { runTau2 } from "../../../src/bench/tau2/run-tau2.js";
import type { Tau2UserSimulator } from "../../../src/bench/tau2/user-simulator.js";
import { loadTau2Domain } from "../../../src/envs/tau2/index.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
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
  it("rehearses the agent's side only: no agent or user tool runs while rehearsing, the user's own calls do", async () => {
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
