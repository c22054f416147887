import { describe, expect, it } from "vitest";
import {
  headroomReport,
  measureHeadroom,
  type HeadroomTaskRow,
} from "../../../src/bench/testtime-headroom.js";
import { replayImaginedError, type ErrorReplay } from "../../../src/bench/imagined-error-replay.js";
import type { ToolCall } from "../../../src/core/messages.js";
import type { ToolResult } from "../../../src/core/tools.js";
import type { RehearsalAttempt } from "../../../src/testtime/types.js";
import { TaskZ } from "../../../src/core/task.js";
import type { ToolCallRecord } from "../../../src/rollout/types.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { goodActor, hasNote, OrderEnv, result, TOOLS } from "../testtime/fixtures.js";

const record = (name: string, args: Record<string, unknown>, res: string, ok = true): ToolCallRecord => ({
  turn: 0,
  call: { id: "c", name, arguments: args },
  result: res,
  ok,
  source: "rehearsal",
});

describe("headroomReport", () => {
  const turn = (
    attempts: string[],
    committed: string,
    none: string,
    attemptErrors = attempts.map(() => 0),
    errorReplays: ErrorReplay[] = [],
  ) => ({
    attempts,
    attemptErrors,
    errorReplays,
    committed,
    none,
  });
  const rows: HeadroomTaskRow[] = [
    // helped: the attempts differed, one met an error, the committed run followed the other
    {
      taskId: "t1",
      none: false,
      rehearsed: true,
      samples: [false, true],
      turns: [turn(["x", "y", "y"], "y", "x", [1, 0, 0], ["false_alarm"])],
    },
    // hurt: identical attempts, committed kept none's calls (the reply went wrong)
    {
      taskId: "t2",
      none: true,
      rehearsed: false,
      samples: [true, true],
      turns: [turn(["x", "x", "x"], "x", "x")],
    },
    // no sample passed
    {
      taskId: "t3",
      none: false,
      rehearsed: false,
      samples: [false, false],
      turns: [turn(["z", "x", "x"], "z", "z", [1, 1, 0], ["confirmed", "false_alarm"])],
    },
  ];
  it("computes every share from the rows", () => {
    expect(headroomReport(rows)).toEqual({
      tasks: 3,
      none: 1 / 3,
      rehearsed: 1 / 3,
      helped: 1,
      hurt: 1,
      sample_success: (0.5 + 1 + 0) / 3,
      pass_at_samples: 2 / 3,
      rehearsed_turns: 3,
      attempts_identical: 1 / 3,
      distinct_attempts: (2 + 1 + 2) / 3,
      attempts_with_imagined_error: 3 / 9,
      imagined_errors_replayed: 3,
      imagined_errors_confirmed: 1 / 3,
      committed_same_as_none: 2 / 3,
      committed_matches_an_attempt: 1,
      committed_matches_majority: 2 / 3,
    });
  });
  it("reports zeros, not NaN, for no tasks", () => {
    const empty = headroomReport([]);
    expect(Object.values(empty).every((v) => v === 0)).toBe(true);
  });
});

describe("measureHeadroom on a scripted policy", () => {
  const task = TaskZ.parse({
    id: "order-1",
    domain: "retail",
    system: "You are a retail agent.",
    tools: TOOLS,
    user_turns: ["Where is order A1?"],
    checklists: [
      [
        [
          { question: "looked up A1", rule: { call: "get_order", args: { order_id: "A1" } } },
          { question: "said pending", rule: { reply_contains: ["pending"] } },
        ],
      ],
    ],
  });

  it("finds the task a note hurt, the imagined error, and which run the committed one followed", async () => {
    // Reads a note and then states a wrong fact (what the demo's small actor does); without a note it
    // is right. The first imagined lookup answers "not found", the second the real status.
    const policy = new ScriptedPolicy({
      act: [
        (r) => (hasNote(r) && r.messages.at(-1)?.role === "tool" ? "Order A1 is shipped." : goodActor(r)),
      ],
      rehearse: [
        (_r, info) =>
          info.index === 0
            ? result({ error: "order A1 not found" })
            : result({ order_id: "A1", status: "pending" }),
      ],
      repeatLast: true,
    });
    const report = await measureHeadroom([task], {
      episode: { policy, envFactory: () => new OrderEnv() },
      rehearsal: { mode: "sequential", n: 2, memory: "digest", promptVariant: "compact" },
      samples: 3,
      sampleTemperature: 0.5,
      concurrency: 1,
    });
    expect(report).toMatchObject({
      tasks: 1,
      none: 1,
      rehearsed: 0,
      helped: 0,
      hurt: 1,
      sample_success: 1,
      pass_at_samples: 1,
      rehearsed_turns: 1,
      attempts_identical: 1,
      distinct_attempts: 1,
      attempts_with_imagined_error: 0.5,
      // the real A1 exists: the imagined "not found" was the rehearser's mistake
      imagined_errors_replayed: 1,
      imagined_errors_confirmed: 0,
      committed_same_as_none: 1,
      committed_matches_an_attempt: 1,
      committed_matches_majority: 1,
    });
    expect(report.failures.none).toMatchObject({ episodes: 1, reply_fact: 0 });
    expect(report.failures.rehearsed).toMatchObject({ episodes: 1, reply_fact: 1 });
    // 1 none + 2 attempts + 1 committed + 3 samples: plain runs sample at the given temperature
    const temps = policy.callsFor("act").map((c) => c.request.temperature);
    expect(temps.filter((t) => t === 0.5)).toHaveLength(3 * 2);
  });
});

describe("replayImaginedError", () => {
  /** Orders that `delete_order` removes; a lookup of a removed order is refused. */
  class DeletingEnv extends OrderEnv {
    executed: string[] = [];
    override async call(c: ToolCall): Promise<ToolResult> {
      this.executed.push(`${c.name}:${String(c.arguments.order_id)}`);
      if (c.name === "delete_order") {
        delete this.orders[String(c.arguments.order_id)];
        return { ok: true, content: '{"deleted":true}' };
      }
      return super.call(c);
    }
  }
  const envs: DeletingEnv[] = [];
  const factory = () => {
    const e = new DeletingEnv();
    envs.push(e);
    return e;
  };
  const task = TaskZ.parse({
    id: "t",
    domain: "retail",
    system: "s",
    tools: TOOLS,
    user_turns: ["u"],
    checklists: [[[{ question: "q", rule: { call: "get_order" } }]]],
  });
  const rec = (name: string, res: string, source: ToolCallRecord["source"] = "rehearsal", ok = true) => ({
    ...record(name, { order_id: "A1" }, res, ok),
    source,
  });
  const attempt = (calls: ToolCallRecord[]): RehearsalAttempt => ({
    index: 0,
    calls,
    end: "replied",
    reply: "r",
  });
  const notFound = '{"error":"order A1 not found"}';

  it("replays the real calls before the turn: a refusal true only after them is confirmed", async () => {
    const deleted = [rec("delete_order", '{"deleted":true}', "real")];
    const a = attempt([rec("get_order", notFound)]);
    expect(await replayImaginedError(task, factory, deleted, a)).toBe("confirmed");
    expect(await replayImaginedError(task, factory, [], a)).toBe("false_alarm");
    expect(envs.at(-2)!.executed).toEqual(["delete_order:A1", "get_order:A1"]);
  });
  it("replays the attempt's own calls up to its first imagined refusal, skipping ones validation refused", async () => {
    const a = attempt([
      rec("get_order", "INVALID_PARAMETERS", "validation", false),
      rec("delete_order", '{"deleted":true}'),
      rec("get_order", notFound),
      rec("cancel_order", notFound),
    ]);
    expect(await replayImaginedError(task, factory, [], a)).toBe("confirmed");
    expect(envs.at(-1)!.executed).toEqual(["delete_order:A1", "get_order:A1"]);
  });
  it("is undefined for an attempt whose tools never said no (a validation refusal is the actor's, not a tool's)", async () => {
    const before = envs.length;
    const a = attempt([
      rec("get_order", '{"status":"pending"}'),
      rec("get_order", "bad", "validation", false),
    ]);
    expect(await replayImaginedError(task, factory, [], a)).toBeUndefined();
    expect(envs.length).toBe(before);
  });
});
