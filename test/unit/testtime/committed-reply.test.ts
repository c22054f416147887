import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/core/model.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { memoryNote, withMemory, withoutMemory } from "../../../src/testtime/memory-view.js";
import { rehearseThenCommit, runEpisodeWithRehearsal } from "../../../src/testtime/index.js";
import type { CommitReply } from "../../../src/testtime/types.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";
import { call, hasNote, OrderEnv, result, TOOLS } from "./fixtures.js";

const lastOf = (r: ChatRequest) => r.messages[r.messages.length - 1]!;
/** The real turn: the user's question, the lookup, its real result (A1 is pending). */
const realTurn = [
  { role: "system" as const, content: "You are a retail agent." },
  { role: "user" as const, content: "Where is order A1?" },
  {
    role: "assistant" as const,
    content: "",
    toolCalls: [{ id: "r1", name: "get_order", arguments: { order_id: "A1" } }],
  },
  {
    role: "tool" as const,
    content: '{"status":"pending","order_id":"A1"}',
    toolCallId: "r1",
    name: "get_order",
  },
];

describe("withoutMemory", () => {
  it("undoes withMemory, in the system message or as its own", () => {
    const note = memoryNote("Attempt 1: ...", 2);
    expect(withoutMemory(withMemory(realTurn, note), note)).toEqual(realTurn);
    const bare = realTurn.slice(1);
    expect(withoutMemory(withMemory(bare, note), note)).toEqual(bare);
    // no note there: the same messages
    expect(withoutMemory(realTurn, note)).toEqual(realTurn);
    expect(withoutMemory(realTurn, undefined)).toEqual(realTurn);
  });
});

/** One turn: where is A1 (pending); the reply must say pending. */
function whereTask(): Task {
  return TaskZ.parse({
    id: "where-1",
    domain: "retail",
    system: "You are a retail agent.",
    tools: TOOLS,
    user_turns: ["Where is order A1?"],
    checklists: [[[{ question: "said pending", rule: { reply_contains: ["pending"] } }]]],
  });
}

/**
 * An actor that looks A1 up, then with the note in its system message replies with a value it
 * copied wrongly (the note's imagined "shipped"), and without it with the real result.
 */
function notedCopier(o: { callWithoutNote?: boolean } = {}): ScriptedPolicy {
  return new ScriptedPolicy({
    act: [
      (r) => {
        if (lastOf(r).role !== "tool") return call("get_order", { order_id: "A1" });
        if (hasNote(r)) return "Order A1 has shipped.";
        return o.callWithoutNote ? call("cancel_order", { order_id: "A1" }) : "Order A1 is pending.";
      },
    ],
    rehearse: [result({ order_id: "A1", status: "shipped" })],
    repeatLast: true,
  });
}

const rehearsal = (commitReply?: CommitReply) => ({
  mode: "parallel" as const,
  n: 2,
  memory: "consensus" as const,
  promptVariant: "compact" as const,
  ...(commitReply ? { commitReply } : {}),
});

describe("commitReply in a rehearsed episode", () => {
  it("noted (the default) commits the reply written with the note; real, the one written without it", async () => {
    const noted = await runEpisodeWithRehearsal(whereTask(), {
      policy: notedCopier(),
      envFactory: () => new OrderEnv(),
      rehearsal: rehearsal(),
    });
    expect(noted.replies).toEqual(["Order A1 has shipped."]);
    expect(noted.success).toBe(false);
    expect(noted.rehearsal.calls.reply).toBe(0);
    {
      const p = notedCopier();
      const ep = await runEpisodeWithRehearsal(whereTask(), {
        policy: p,
        envFactory: () => new OrderEnv(),
        rehearsal: rehearsal("real"),
      });
      expect(ep.replies).toEqual(["Order A1 is pending."]);
      expect(ep.success).toBe(true);
      // one more model call, on the real conversation without the note, counted as rehearsal's
      expect(ep.rehearsal.calls.reply).toBe(1);
      expect(ep.rehearsal.replacedReplies).toBe(1);
      const rewrite = p.callsFor("act").at(-1)!.request;
      expect(hasNote(rewrite)).toBe(false);
      expect(lastOf(rewrite).content).toContain("pending");
      // the committed calls went on with the note: only the reply was written again
      expect(
        p.callsFor("act").filter((c) => hasNote(c.request) && lastOf(c.request).role === "user"),
      ).toHaveLength(1);
    }
  });

  it("keeps the noted reply where the actor without the note would call a tool instead", async () => {
    const env = new OrderEnv();
    const ep = await runEpisodeWithRehearsal(whereTask(), {
      policy: notedCopier({ callWithoutNote: true }),
      envFactory: () => env,
      rehearsal: rehearsal("real"),
    });
    expect(ep.replies).toEqual(["Order A1 has shipped."]);
    expect(env.orders.A1).toBe("pending");
    expect(ep.rehearsal.calls.reply).toBe(1);
    expect(ep.rehearsal.replacedReplies).toBe(0);
  });

  it("applies to a live turn too (rehearseThenCommit)", async () => {
    const turn = await rehearseThenCommit({
      policy: notedCopier(),
      task: whereTask(),
      conversation: [{ role: "user", content: "Where is order A1?" }],
      env: new OrderEnv(),
      rehearsal: rehearsal("real"),
    });
    expect(turn.reply).toBe("Order A1 is pending.");
    expect(turn.stats.replacedReplies).toBe(1);
  });
});
