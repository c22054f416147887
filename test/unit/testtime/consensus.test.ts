import { describe, expect, it } from "vitest";
import type { ToolCallRecord } from "../../../src/rollout/types.js";
import { runEpisodeWithRehearsal } from "../../../src/testtime/index.js";
import {
  callSignature,
  consensusPlan,
  isErrorResult,
  refusedCalls,
} from "../../../src/testtime/consensus.js";
import type { RehearsalAttempt } from "../../../src/testtime/types.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { call, isCommitted, OrderEnv, orderTask, result, systemOf } from "./fixtures.js";

const callRecord = (name: string, args: Record<string, unknown>, res: string, ok = true): ToolCallRecord => ({
  turn: 0,
  call: { id: "c", name, arguments: args },
  result: res,
  ok,
  source: "rehearsal",
});

const record = (name: string, id: string, res: string, ok = true): ToolCallRecord =>
  callRecord(name, { order_id: id }, res, ok);

const attempt = (
  index: number,
  calls: ToolCallRecord[],
  end: RehearsalAttempt["end"] = "replied",
  reply?: string,
): RehearsalAttempt => ({ index, end, calls, ...(reply !== undefined ? { reply } : {}) });

const a1 = () => record("get_order", "A1", '{"status":"cancelled"}');
const a2 = () => record("get_order", "A2", '{"status":"pending"}');
const cancelOk = () => record("cancel_order", "A1", '{"status":"cancelled"}');
const cancelNo = () => record("cancel_order", "A1", '{"error":"order A1 is cancelled"}');
const index = (as: RehearsalAttempt[]) => consensusPlan(as)?.index;

describe("callSignature and isErrorResult", () => {
  it("tells calls, arguments and whether the turn replied apart", () => {
    const a = callRecord("get_order", { order_id: "A1" }, "{}");
    const b = callRecord("get_order", { order_id: "A2" }, "{}");
    expect(callSignature([a], true)).not.toBe(callSignature([b], true));
    expect(callSignature([a], true)).not.toBe(callSignature([a], false));
    expect(callSignature([a, a], true)).not.toBe(callSignature([a], true));
    expect(callSignature([a], true)).toBe(callSignature([{ ...a, result: "other" }], true));
  });
  it("is the same call whatever the order of its arguments' keys, at every level", () => {
    const ab = callRecord("move", { from: "a1", to: "a2", meta: { x: 1, y: 2 } }, "{}");
    const ba = callRecord("move", { meta: { y: 2, x: 1 }, to: "a2", from: "a1" }, "{}");
    expect(callSignature([ab], true)).toBe(callSignature([ba], true));
    const refusedAb = { ...ab, result: '{"error":"no"}' };
    const refusedBa = { ...ba, result: '{"error":"no"}' };
    // two attempts refused the same call written two ways: a majority, not two halves
    expect(refusedCalls([attempt(0, [refusedAb]), attempt(1, [refusedBa]), attempt(2, [ab])]).size).toBe(1);
  });
  it("counts refused calls and `error` objects, not results that merely mention an error", () => {
    expect(isErrorResult(callRecord("t", {}, '{"error":"order A9 not found"}'))).toBe(true);
    expect(isErrorResult(callRecord("t", {}, "INVALID_PARAMETERS", false))).toBe(true);
    expect(isErrorResult(callRecord("t", {}, '{"status":"error in shipping"}'))).toBe(false);
    expect(isErrorResult(callRecord("t", {}, '["error"]'))).toBe(false);
    expect(isErrorResult(callRecord("t", {}, "not json"))).toBe(false);
  });
});

describe("refusedCalls: what the rehearsal learnt not to do", () => {
  it("is the calls refused in more than half of the attempts that made them", () => {
    const key = 'cancel_order{"order_id":"A1"}';
    expect(refusedCalls([attempt(0, [a1(), cancelNo()]), attempt(1, [a1(), cancelNo()])])).toEqual(
      new Set([key]),
    );
    expect(
      refusedCalls([attempt(0, [cancelNo()]), attempt(1, [cancelNo()]), attempt(2, [cancelOk()])]),
    ).toEqual(new Set([key]));
    // one refusal against one success is not news; a call validation refused counts as refused
    expect(refusedCalls([attempt(0, [cancelNo()]), attempt(1, [cancelOk()])]).size).toBe(0);
    expect(refusedCalls([attempt(0, [record("get_order", "A1", "INVALID", false)])]).size).toBe(1);
  });
});

describe("consensusPlan: the plan most attempts agree on", () => {
  it("is the most frequent attempt (same calls, arguments and ending), ties to the earliest", () => {
    expect(index([attempt(0, [a2()]), attempt(1, [a1()]), attempt(2, [a1()])])).toBe(1);
    expect(index([attempt(0, [a2()]), attempt(1, [a1()])])).toBe(0);
    // imagined results do not split a majority
    expect(index([attempt(0, [a1()]), attempt(1, [a2()]), attempt(2, [{ ...a2(), result: "{}" }])])).toBe(1);
    // attempts that reached a reply come first; without any, the majority of all
    expect(
      index([attempt(0, [a1()], "max_steps"), attempt(1, [a1()], "max_steps"), attempt(2, [a2()])]),
    ).toBe(2);
    expect(
      index([
        attempt(0, [a2()], "max_steps"),
        attempt(1, [a1()], "max_steps"),
        attempt(2, [a1()], "max_steps"),
      ]),
    ).toBe(1);
    expect(consensusPlan([])).toBeUndefined();
  });

  it("leaves the refused calls out of every plan, so the majority counts what would be done", () => {
    // three attempts cancel and are told no, one imagines the cancel went through, one only looks:
    // the plan is the lookup and the reply of an attempt that heard the refusal
    const told = attempt(0, [a1(), cancelNo()], "replied", "A1 is cancelled already.");
    const plan = consensusPlan([
      attempt(1, [a1(), cancelOk()], "replied", "Done."),
      told,
      attempt(2, [a1(), cancelNo()], "replied", "Sorry."),
      attempt(3, [a1(), cancelNo()], "replied", "Sorry!"),
    ]);
    expect(plan).toEqual({ ...told, calls: [a1()] });
    expect(told.calls).toHaveLength(2); // the attempt itself is left as it was
  });

  it("keeps a call that most attempts imagined going through, refusal or not", () => {
    const plan = consensusPlan([
      attempt(0, [a1(), cancelNo()]),
      attempt(1, [a1(), cancelOk()]),
      attempt(2, [a1()]),
    ]);
    expect(plan?.calls.map((c) => c.call.name)).toEqual(["get_order", "cancel_order"]);
  });
});

describe("memory `consensus` in a rehearsed episode", () => {
  it("shows the committed actor only the consensus plan, and says how many attempts ran", async () => {
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
    // the A2 lookups were refused in every attempt that made them: left out, the plan "reply at
    // once" ties with the A1 lookup, which two attempts carried out whole
    expect(note.match(/^Attempt \d/gm)).toEqual(["Attempt 2"]);
    expect(note).toContain('- get_order {"order_id":"A1"} -> {"order_id":"A1","status":"pending"}');
    expect(note).not.toContain("A2");
  });
});
