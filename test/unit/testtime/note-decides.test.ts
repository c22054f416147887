import { describe, expect, it } from "vitest";
import type { ChatRequest } from "../../../src/core/model.js";
import { TaskZ, type Task } from "../../../src/core/task.js";
import { memoryNote, withMemory, withoutMemory } from "../../../src/testtime/memory-view.js";
import { rehearseThenCommit, runEpisodeWithRehearsal } from "../../../src/testtime/index.js";
import type { NoteUse } from "../../../src/testtime/types.js";
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
 * An actor that, with the note in its system message, copies wrongly: it looks up B7 instead of
 * the A1 the user named and says A1 has shipped (the note's imagined status); without the note it
 * looks up A1 and says what the real result says. `decideOtherwise`: without the note it looks the
 * order up again instead of replying (another decision).
 */
function notedCopier(o: { decideOtherwise?: boolean } = {}): ScriptedPolicy {
  return new ScriptedPolicy({
    act: [
      (r) => {
        const noted = hasNote(r);
        if (lastOf(r).role !== "tool") return call("get_order", { order_id: noted ? "B7" : "A1" });
        if (noted) return "Order A1 has shipped.";
        return o.decideOtherwise ? call("get_order", { order_id: "A1" }) : "Order A1 is pending.";
      },
    ],
    rehearse: [result({ order_id: "A1", status: "shipped" })],
    repeatLast: true,
  });
}

const rehearsal = (noteUse?: NoteUse, guardTools?: string[]) => ({
  mode: "parallel" as const,
  n: 2,
  memory: "consensus" as const,
  promptVariant: "compact" as const,
  ...(noteUse ? { noteUse } : {}),
  ...(guardTools ? { guardTools } : {}),
});

describe("noteUse in a rehearsed episode", () => {
  it("act (the default) commits the steps written with the note; decide, the same steps written without it", async () => {
    const acted = await runEpisodeWithRehearsal(whereTask(), {
      policy: notedCopier(),
      envFactory: () => new OrderEnv(),
      rehearsal: rehearsal(),
    });
    expect(acted.calls.map((c) => c.call.arguments)).toEqual([{ order_id: "B7" }]);
    expect(acted.replies).toEqual(["Order A1 has shipped."]);
    expect(acted.success).toBe(false);
    expect(acted.rehearsal.calls.rewrite).toBe(0);

    const p = notedCopier();
    const ep = await runEpisodeWithRehearsal(whereTask(), {
      policy: p,
      envFactory: () => new OrderEnv(),
      rehearsal: rehearsal("decide"),
    });
    // the lookup with the user's id, the reply with the real status
    expect(ep.calls.map((c) => c.call.arguments)).toEqual([{ order_id: "A1" }]);
    expect(ep.replies).toEqual(["Order A1 is pending."]);
    expect(ep.success).toBe(true);
    // one more model call per committed step, on the real conversation without the note
    expect(ep.rehearsal.calls.rewrite).toBe(2);
    expect(ep.rehearsal.rewrittenSteps).toBe(2);
    const rewrite = p.callsFor("act").at(-1)!.request;
    expect(hasNote(rewrite)).toBe(false);
    expect(lastOf(rewrite).content).toContain("pending");
  });

  it("keeps the noted step where the step written without the note decides otherwise", async () => {
    const ep = await runEpisodeWithRehearsal(whereTask(), {
      policy: notedCopier({ decideOtherwise: true }),
      envFactory: () => new OrderEnv(),
      rehearsal: rehearsal("decide"),
    });
    // the lookup was the same decision (rewritten); the reply was not (kept, in the note's words)
    expect(ep.calls.map((c) => c.call.arguments)).toEqual([{ order_id: "A1" }]);
    expect(ep.replies).toEqual(["Order A1 has shipped."]);
    expect(ep.rehearsal.calls.rewrite).toBe(2);
    expect(ep.rehearsal.rewrittenSteps).toBe(1);
  });

  it("never brings in a call the guard holds back: the noted step stands", async () => {
    // the attempts (no note) cancel A1 and imagine it refused; the noted actor cancels A2
    const p = new ScriptedPolicy({
      act: [
        (r) => {
          if (lastOf(r).role === "tool") return "Done.";
          return call("cancel_order", { order_id: hasNote(r) ? "A2" : "A1" });
        },
      ],
      rehearse: [result({ error: "order A1 has shipped" })],
      repeatLast: true,
    });
    const env = new OrderEnv();
    const ep = await runEpisodeWithRehearsal(
      { ...whereTask(), user_turns: ["Cancel order A1."] },
      { policy: p, envFactory: () => env, rehearsal: rehearsal("decide", ["cancel_order"]) },
    );
    expect(ep.calls.map((c) => c.call.arguments)).toEqual([{ order_id: "A2" }]);
    expect(env.orders.A1).toBe("pending");
    expect(ep.rehearsal.heldCalls).toBe(0);
  });

  /**
   * With the note the actor answers at once, in the note's words (A1 shipped); without it, it
   * looks A1 up first (`plainStep`: a read, or the cancel when `plainWrites`).
   */
  function stopsEarlyWithNote(o: { plainWrites?: boolean } = {}): ScriptedPolicy {
    return new ScriptedPolicy({
      act: [
        (r) => {
          if (hasNote(r)) return "Order A1 has shipped.";
          if (lastOf(r).role === "tool") return "Order A1 is pending.";
          return o.plainWrites
            ? call("cancel_order", { order_id: "A1" })
            : call("get_order", { order_id: "A1" });
        },
      ],
      rehearse: [result({ order_id: "A1", status: "shipped" })],
      repeatLast: true,
    });
  }

  it("commits the lookup the step written without the note makes where the noted step would reply", async () => {
    const env = new OrderEnv();
    const ep = await runEpisodeWithRehearsal(whereTask(), {
      policy: stopsEarlyWithNote(),
      envFactory: () => env,
      rehearsal: rehearsal("decide", ["cancel_order"]),
    });
    // the real lookup, then the reply (the same decision as the noted one) in the real words
    expect(ep.calls.map((c) => [c.call.name, c.call.arguments])).toEqual([["get_order", { order_id: "A1" }]]);
    expect(ep.replies).toEqual(["Order A1 is pending."]);
    expect(ep.success).toBe(true);
    expect(ep.rehearsal.rewrittenSteps).toBe(2);
  });

  it("keeps the noted reply where the step without the note writes, or where no tool is named a write", async () => {
    const env = new OrderEnv();
    const writes = await runEpisodeWithRehearsal(whereTask(), {
      policy: stopsEarlyWithNote({ plainWrites: true }),
      envFactory: () => env,
      rehearsal: rehearsal("decide", ["cancel_order"]),
    });
    // the note may keep a write out of the turn: nothing cancelled
    expect(writes.calls).toEqual([]);
    expect(writes.replies).toEqual(["Order A1 has shipped."]);
    expect(env.orders.A1).toBe("pending");
    expect(writes.rehearsal.rewrittenSteps).toBe(0);

    // no guarded tools: which calls only read is unknown, and the noted reply stands
    const unnamed = await runEpisodeWithRehearsal(whereTask(), {
      policy: stopsEarlyWithNote(),
      envFactory: () => new OrderEnv(),
      rehearsal: rehearsal("decide"),
    });
    expect(unnamed.calls).toEqual([]);
    expect(unnamed.replies).toEqual(["Order A1 has shipped."]);
  });

  /**
   * After the lookup, the actor with the note cancels A1; without it, it cancels only an order it
   * sees open, else says the status. `imagined`: the status the rehearser gives A1 (real: pending).
   */
  function cancelsWithNote(imagined: string): ScriptedPolicy {
    return new ScriptedPolicy({
      act: [
        (r) => {
          const last = lastOf(r);
          if (last.role !== "tool") return call("get_order", { order_id: "A1" });
          if (/cancelled/.test(last.content)) return "Cancelled A1.";
          if (hasNote(r) || /open/.test(last.content)) return call("cancel_order", { order_id: "A1" });
          return "Order A1 is pending.";
        },
      ],
      rehearse: [
        (r) =>
          /cancel_order/.test(lastOf(r).content.split("\n").pop() ?? "")
            ? result({ order_id: "A1", status: "cancelled" })
            : result({ order_id: "A1", status: imagined }),
      ],
      repeatLast: true,
    });
  }

  it("commits the step without the note where the noted one makes a write no attempt made", async () => {
    // the attempts look A1 up (imagined pending) and reply: none cancels
    const env = new OrderEnv();
    const ep = await runEpisodeWithRehearsal(whereTask(), {
      policy: cancelsWithNote("pending"),
      envFactory: () => env,
      rehearsal: rehearsal("decide", ["cancel_order"]),
    });
    expect(ep.calls.map((c) => c.call.name)).toEqual(["get_order"]);
    expect(ep.replies).toEqual(["Order A1 is pending."]);
    expect(env.orders.A1).toBe("pending");
    expect(ep.rehearsal.rewrittenSteps).toBe(1);

    // the attempts imagine A1 open and cancel it: the noted cancel stands
    const planned = new OrderEnv();
    const kept = await runEpisodeWithRehearsal(whereTask(), {
      policy: cancelsWithNote("open"),
      envFactory: () => planned,
      rehearsal: rehearsal("decide", ["cancel_order"]),
    });
    expect(kept.calls.map((c) => c.call.name)).toEqual(["get_order", "cancel_order"]);
    expect(planned.orders.A1).toBe("cancelled");
  });

  it("applies to a live turn too (rehearseThenCommit)", async () => {
    const env = new OrderEnv();
    const turn = await rehearseThenCommit({
      policy: notedCopier(),
      task: whereTask(),
      conversation: [{ role: "user", content: "Where is order A1?" }],
      env,
      rehearsal: rehearsal("decide"),
    });
    expect(turn.reply).toBe("Order A1 is pending.");
    expect(turn.stats.rewrittenSteps).toBe(2);
  });
});
