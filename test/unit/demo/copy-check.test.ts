import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import { renderAssistantText } from "../../../src/core/tool-call-text.js";
import {
  COPY_CHECK_MIN,
  copyCheckScore,
  copyProbes,
  probeRight,
  runCopyCheck,
  type CopyProbe,
} from "../../../src/demo/copy-check.js";
import { buildDemoData, heldBackTasks } from "../../../src/demo/data.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { DAYS } from "../../../src/envs/toolworld/index.js";

const words = (s: string) => s.match(/[A-Za-z0-9_]+/g) ?? [];
const callText = (name: string, args: Record<string, unknown>) =>
  renderAssistantText("", [{ id: "c", name, arguments: args }]);

describe("held-back logs and their far-copy probes", () => {
  const seed = 3;
  const data = buildDemoData(QUICK_PLAN, seed);
  const tasks = heldBackTasks(QUICK_PLAN, seed, data);
  const probes = copyProbes(tasks, seed);

  it("come from requests that neither SFT nor the evaluation holds", () => {
    const seen = new Set([
      ...Object.values(data.train).flatMap((ts) => ts.flatMap((t) => t.user_turns)),
      ...data.evalRequests,
    ]);
    expect(tasks.length).toBeGreaterThan(50);
    for (const t of tasks) for (const u of t.user_turns) expect(seen.has(u), u).toBe(false);
  });

  it("probe write calls whose values only the request states, after a response", () => {
    const writes = probes.filter((p) => p.kind === "write");
    expect(writes.length).toBeGreaterThan(10);
    for (const p of writes) {
      const last = p.messages.at(-1)!;
      expect(last.role).toBe("tool");
      const said = new Set(p.messages.filter((m) => m.role === "user").flatMap((m) => words(m.content)));
      const earlier = new Set(
        p.messages.flatMap((m) => [
          ...(m.role === "tool" ? words(m.content) : []),
          ...(m.toolCalls ?? []).flatMap((c) => Object.values(c.arguments).map(String)),
        ]),
      );
      for (const v of Object.values(p.values)) {
        expect(said.has(v), v).toBe(true);
        expect(earlier.has(v), v).toBe(false);
      }
    }
    // The failure the check exists for: a move's day, with the looked-up day as the nearer one.
    const move = writes.find(
      (p) => p.tool === "move_event" && p.messages.some((m) => m.content.includes('"day"')),
    );
    expect(move).toBeDefined();
    expect(DAYS).toContain(move!.values.day);
  });

  it("probe the reply after such a write for the values it copied", () => {
    const replies = probes.filter((p) => p.kind === "reply");
    expect(replies.length).toBeGreaterThan(5);
    for (const p of replies) {
      const write = p.messages.findLast((m) => m.role === "assistant" && m.toolCalls?.length);
      expect(write).toBeDefined();
      const args = new Set(write!.toolCalls!.flatMap((c) => Object.values(c.arguments).map(String)));
      for (const v of Object.values(p.values)) expect(args.has(v)).toBe(true);
    }
  });

  it("are the same for the same seed (the check is repeatable)", () => {
    expect(copyProbes(tasks, seed)).toEqual(probes);
  });
});

describe("probeRight", () => {
  const write: CopyProbe = {
    kind: "write",
    task: "t",
    messages: [],
    tool: "move_event",
    values: { day: "friday" },
  };
  const reply: CopyProbe = { kind: "reply", task: "t", messages: [], values: { day: "friday" } };

  it("passes the write call that copies the request's value and nothing else", () => {
    expect(probeRight(write, callText("move_event", { event_id: "e1", day: "friday" }))).toBe(true);
    expect(probeRight(write, callText("move_event", { event_id: "e1", day: "tuesday" }))).toBe(false);
    expect(probeRight(write, callText("cancel_event", { event_id: "e1", day: "friday" }))).toBe(false);
    expect(probeRight(write, "done, event e1 is now on friday.")).toBe(false);
  });

  it("passes the reply that states the value, not a call or another value", () => {
    expect(probeRight(reply, "done, event e1 is now on friday.")).toBe(true);
    expect(probeRight(reply, "done, event e1 is now on tuesday.")).toBe(false);
    expect(probeRight(reply, callText("move_event", { event_id: "e1", day: "friday" }))).toBe(false);
  });
});

describe("runCopyCheck", () => {
  const seed = 1;
  const data = buildDemoData(QUICK_PLAN, seed);
  const probes = copyProbes(heldBackTasks(QUICK_PLAN, seed, data), seed);
  const answering = (answer: (p: CopyProbe) => string): ChatModel => ({
    name: "scripted",
    async chat(request: ChatRequest) {
      const probe = probes.find((p) => p.messages === request.messages || sameMessages(p, request));
      return { samples: [{ text: probe ? answer(probe) : "", finishReason: "stop" }] };
    },
  });
  const sameMessages = (p: CopyProbe, r: ChatRequest) =>
    JSON.stringify(p.messages) === JSON.stringify(r.messages);

  it("passes a model that copies every value and fails one that writes a constant day", async () => {
    const copying = (p: CopyProbe) =>
      p.kind === "write" ? callText(p.tool!, p.values) : `done: ${Object.values(p.values).join(" ")}.`;
    const good = await runCopyCheck(answering(copying), probes, 8);
    expect(good.write.total).toBeGreaterThan(0);
    expect(good.write.right).toBe(good.write.total);
    expect(good.reply.right).toBe(good.reply.total);
    expect(good.passed).toBe(true);

    const saturday = (p: CopyProbe) =>
      copying({
        ...p,
        values: Object.fromEntries(
          Object.entries(p.values).map(([k, v]) => [k, DAYS.includes(v as never) ? "saturday" : v]),
        ),
      });
    const bad = await runCopyCheck(answering(saturday), probes, 8);
    const moves = probes.filter(
      (p) => p.kind === "write" && p.values.day && p.values.day !== "saturday",
    ).length;
    expect(moves).toBeGreaterThan(0);
    expect(bad.write.right).toBe(good.write.total - moves);
  });
});

describe("copyCheckScore", () => {
  it("passes on the write rate (v18); the reply rate is reported; a kind without probes counts as right", () => {
    const w = Math.ceil(COPY_CHECK_MIN.write * 20);
    const r = Math.ceil(COPY_CHECK_MIN.reply * 20);
    expect(copyCheckScore({ right: w, total: 20 }, { right: r, total: 20 })).toMatchObject({
      passed: true,
      replyMet: true,
    });
    expect(copyCheckScore({ right: w - 1, total: 20 }, { right: 20, total: 20 }).passed).toBe(false);
    // seed 0's first run under v17: 64/64 writes, 29/40 replies — kept now, its replies reported
    expect(copyCheckScore({ right: 64, total: 64 }, { right: 29, total: 40 })).toMatchObject({
      passed: true,
      replyMet: false,
    });
    expect(copyCheckScore({ right: 20, total: 20 }, { right: r - 1, total: 20 }).replyMet).toBe(false);
    expect(copyCheckScore({ right: 20, total: 20 }, { right: 0, total: 0 })).toMatchObject({
      passed: true,
      replyMet: true,
    });
    expect(copyCheckScore({ right: 0, total: 0 }, { right: 0, total: 20 }).passed).toBe(true);
    // The score orders attempts: the write rate's margin, whatever the replies.
    const a = copyCheckScore({ right: 10, total: 20 }, { right: 20, total: 20 });
    const b = copyCheckScore({ right: 16, total: 20 }, { right: 4, total: 20 });
    expect(b.score).toBeGreaterThan(a.score);
  });
});
