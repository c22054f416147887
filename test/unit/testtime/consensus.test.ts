import { describe, expect, it } from "vitest";
import type { ToolCallRecord } from "../../../src/rollout/types.js";
import { runEpisodeWithRehearsal } from "../../../src/testtime/index.js";
import { consensusAttempt, consensusPlan } from "../../../src/testtime/consensus.js";
import type { RehearsalAttempt } from "../../../src/testtime/types.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { call, isCommitted, OrderEnv, orderTask, result, systemOf } from "./fixtures.js";

const record = (id: string, res: string, ok = true): ToolCallRecord => ({
  turn: 0,
  call: { id: "c", name: "get_order", arguments: { order_id: id } },
  result: res,
  ok,
  source: "rehearsal",
});
const attempt = (index: number, calls: ToolCallRecord[], end: RehearsalAttempt["end"] = "replied") => ({
  index,
  end,
  calls,
});

describe("consensusAttempt: the attempt to follow", () => {
  const a1 = () => record("A1", '{"status":"pending"}');
  const a2 = () => record("A2", '{"status":"pending"}');
  const refused = () => record("A1", '{"error":"order A1 is cancelled"}');

  it("is the most frequent attempt (same calls, arguments and ending), ties to the earliest", () => {
    expect(consensusAttempt([attempt(0, [a2()]), attempt(1, [a1()]), attempt(2, [a1()])])?.index).toBe(1);
    expect(consensusAttempt([attempt(0, [a2()]), attempt(1, [a1()])])?.index).toBe(0);
    // the imagined results do not split a majority; the ending does
    expect(
      consensusAttempt([attempt(0, [a1()]), attempt(1, [a2()]), attempt(2, [{ ...a2(), result: "{}" }])])
        ?.index,
    ).toBe(1);
    expect(
      consensusAttempt([
        attempt(0, [a2()], "max_assistant_turns"),
        attempt(1, [a1()], "max_assistant_turns"),
        attempt(2, [{ ...a1(), result: "{}" }], "max_assistant_turns"),
      ])?.index,
    ).toBe(1);
    expect(consensusAttempt([])).toBeUndefined();
  });

  it("leaves out attempts that met a tool saying no or did not reply, while another got through", () => {
    expect(
      consensusAttempt([attempt(0, [refused()]), attempt(1, [refused()]), attempt(2, [a2()])])?.index,
    ).toBe(2);
    expect(
      consensusAttempt([
        attempt(0, [a1()], "max_steps"),
        attempt(1, [a1()], "max_steps"),
        attempt(2, [record("A1", "INVALID", false)]),
        attempt(3, [a2()]),
      ])?.index,
    ).toBe(3);
    // none got through: the majority of all of them
    expect(
      consensusAttempt([attempt(0, [a2()], "max_steps"), attempt(1, [refused()]), attempt(2, [refused()])])
        ?.index,
    ).toBe(1);
  });
});

describe("consensusPlan: what the note shows", () => {
  const lookup = record("A1", '{"status":"cancelled"}');
  const cancel: ToolCallRecord = {
    ...record("A1", '{"error":"order A1 is cancelled"}'),
    call: { id: "c", name: "cancel_order", arguments: { order_id: "A1" } },
  };
  it("is the consensus attempt as it was when no tool said no to it", () => {
    const clean = attempt(1, [lookup]);
    expect(consensusPlan([attempt(0, [lookup, cancel]), clean])).toBe(clean);
  });
  it("leaves out the refused calls when every attempt met a refusal, and keeps the rest of the attempt", () => {
    const refused = { ...attempt(0, [lookup, cancel]), reply: "A1 is cancelled already." };
    const plan = consensusPlan([refused, attempt(1, [cancel])]);
    expect(plan).toEqual({ ...refused, calls: [lookup] });
    expect(refused.calls).toHaveLength(2); // the attempt itself is left as it was
    expect(consensusPlan([])).toBeUndefined();
  });
});

describe("memory `consensus` in a rehearsed episode", () => {
  it("shows the committed actor only the consensus attempt, and says how many attempts ran", async () => {
    // attempts 1 and 3 look up A2 (the rehearser says it does not exist), 2 and 4 look up A1
    let firstActs = 0;
    const p = new ScriptedPolicy({
      act: [
        (r) => {
          const last = r.messages[r.messages.length - 1]!;
          if (last.role === "tool") return "Order A1 is pending.";
          if (isCommitted(r)) return call("get_order", { order_id: "A1" });
          return call("get_order", { order_id: firstActs++ % 2 === 0 ? "A2" : "A1" });
        },
      ],
      rehearse: [
        (r) =>
          /A2/.test(String(r.messages[1]?.content).split("\n").pop() ?? "")
            ? result({ error: "order A2 not found" })
            : result({ order_id: "A1", status: "pending" }),
      ],
      repeatLast: true,
    });
    const task = {
      ...orderTask(),
      user_turns: ["Where is order A1?"],
      checklists: [[orderTask().checklists[0]![0]!]],
    };
    const ep = await runEpisodeWithRehearsal(task, {
      policy: p,
      envFactory: () => new OrderEnv(),
      rehearsal: { mode: "parallel", n: 4, memory: "consensus", promptVariant: "compact" },
    });
    expect(ep.success).toBe(true);
    expect(ep.rehearsals[0]!.rehearsal.attempts).toHaveLength(4);
    const note = systemOf(p.callsFor("act").find((c) => isCommitted(c.request))!.request);
    expect(note).toContain("rehearsed this step privately 4 time(s)");
    expect(note.match(/^Attempt \d/gm)).toEqual(["Attempt 2"]);
    expect(note).toContain('- get_order {"order_id":"A1"} -> {"order_id":"A1","status":"pending"}');
    expect(note).not.toContain("A2");
  });
});
