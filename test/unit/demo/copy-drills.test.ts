import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/core/messages.js";
import { copyDrills } from "../../../src/demo/copy-drills.js";
import { buildDemoData } from "../../../src/demo/data.js";
import { QUICK_PLAN } from "../../../src/demo/layout.js";
import { demoSftData } from "../../../src/demo/sft-stage.js";
import { DAYS } from "../../../src/envs/toolworld/index.js";
import { mulberry32 } from "../../../src/train/task-sampler.js";
import type { SftExample } from "../../../src/train/sft.js";

const call = (id: string, name: string, args: Record<string, unknown>): Message => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name, arguments: args }],
});
const tool = (id: string, content: unknown): Message => ({
  role: "tool",
  toolCallId: id,
  content: JSON.stringify(content),
});

/** The v10 failure: `move_event` must write the requested day, not the looked-up one. */
function moveExample(opts: { lookup?: boolean; current?: string } = {}): SftExample {
  const messages: Message[] = [
    {
      role: "system",
      content:
        "calendar agent. check an event before acting.\ntools: get_event(event_id) move_event(event_id,day)",
    },
    { role: "user", content: "move event e5 to friday." },
  ];
  if (opts.lookup !== false)
    messages.push(
      call("c0", "get_event", { event_id: "e5" }),
      tool("c0", { status: "confirmed", day: opts.current ?? "monday" }),
    );
  messages.push(
    call("c1", "move_event", { event_id: "e5", day: "friday" }),
    tool("c1", { result: "moved" }),
    {
      role: "assistant",
      content: "done, event e5 is now on friday.",
    },
  );
  return { messages, targets: messages.flatMap((m, i) => (m.role === "assistant" ? [i] : [])) };
}

const dayIn = (text: string) => DAYS.filter((d) => new RegExp(`\\b${d}\\b`).test(text));

describe("copyDrills", () => {
  const opts = { pool: DAYS, copies: 2, forbidden: new Set<string>() };

  it("drills a write that copies the requested day past a lookup naming another, the days permuted throughout", () => {
    const example = moveExample();
    const drills = copyDrills([example], { ...opts, copies: 40 }, mulberry32(7));
    expect(drills).toHaveLength(40);
    const requested = new Set<string>();
    for (const d of drills) {
      const [asked] = dayIn(d.messages[1]!.content);
      const looked = JSON.parse(d.messages[3]!.content).day;
      const write = d.messages[4]!.toolCalls![0]!;
      // still one consistent example: the write names the requested day, the lookup another one
      expect(write.arguments).toEqual({ event_id: "e5", day: asked });
      expect(looked).not.toBe(asked);
      expect(JSON.parse(d.messages[5]!.content)).toEqual({ result: "moved" });
      expect(dayIn(d.messages[6]!.content)).toEqual([asked]);
      // the requested day moved; the rest of the example (ids, prompt, targets) did not
      expect(asked).not.toBe("friday");
      expect(d.messages[0]).toEqual(example.messages[0]);
      expect(d.messages[2]).toEqual(example.messages[2]);
      expect(d.targets).toEqual(example.targets);
      requested.add(asked!);
    }
    // the right day is any of the other six, never a value the model could prefer
    expect(requested.size).toBe(DAYS.length - 1);
    expect(example.messages[1]!.content).toBe("move event e5 to friday."); // the log itself is untouched
  });

  it("leaves alone writes with nothing to copy past: no lookup before, or a lookup naming the same day", () => {
    expect(copyDrills([moveExample({ lookup: false })], opts, mulberry32(1))).toEqual([]);
    expect(copyDrills([moveExample({ current: "friday" })], opts, mulberry32(1))).toEqual([]);
    const freeze: SftExample = {
      messages: [
        { role: "user", content: "freeze account a3." },
        call("c0", "get_account", { account_id: "a3" }),
        tool("c0", { status: "open", balance: 40 }),
        call("c1", "freeze_account", { account_id: "a3" }),
      ],
      targets: [1, 3],
    };
    expect(copyDrills([freeze], opts, mulberry32(1))).toEqual([]);
    expect(copyDrills([moveExample()], { ...opts, copies: 0 }, mulberry32(1))).toEqual([]);
  });

  it("never turns a request into a forbidden one (an evaluation request): such drills are left out", () => {
    const others = DAYS.filter((d) => d !== "friday").map((d) => `move event e5 to ${d}.`);
    expect(copyDrills([moveExample()], { ...opts, forbidden: new Set(others) }, mulberry32(3))).toEqual([]);
    const allowed = others.pop()!;
    // one allowed day of six: each drill draws up to 8 permutations, so most copies find it
    const drills = copyDrills(
      [moveExample()],
      { ...opts, copies: 20, forbidden: new Set(others) },
      mulberry32(3),
    );
    expect(drills.length).toBeGreaterThan(10);
    expect(drills.length).toBeLessThan(20);
    expect(new Set(drills.map((d) => d.messages[1]!.content))).toEqual(new Set([allowed]));
  });

  it("the demo's SFT data carries the day drills of its plan, none of them an evaluation request", () => {
    const data = buildDemoData(QUICK_PLAN, 3);
    const tasks = Object.values(data.train).flat().length;
    const plan = { ...QUICK_PLAN, sftTargetDrills: 0 };
    const withDrills = demoSftData(data, plan, 3);
    const without = demoSftData(data, { ...plan, sftCopyDrills: 0 }, 3);
    expect(without.act).toHaveLength(tasks);
    expect(withDrills.act.slice(0, tasks)).toEqual(without.act); // drills come after, the rest as it was
    expect(withDrills.rehearse).toEqual(without.rehearse);
    const drills = withDrills.act.slice(tasks);
    expect(drills.length).toBeGreaterThan(0);
    const evalRequests = new Set(data.evalRequests);
    for (const d of drills) {
      for (const m of d.messages) if (m.role === "user") expect(evalRequests.has(m.content)).toBe(false);
      expect(d.messages.some((m) => m.toolCalls?.some((c) => DAYS.includes(c.arguments.day as never)))).toBe(
        true,
      );
    }
  });

  it("with distractCalls, drills a transfer's target copied past the lookup call on its source account", () => {
    const accounts = ["a3", "a7", "a9", "a12"];
    const transfer: SftExample = {
      messages: [
        { role: "user", content: "send 20 from account a3 to account a7." },
        call("c0", "get_account", { account_id: "a3" }),
        tool("c0", { status: "open", balance: 40 }),
        call("c1", "transfer", { account_id: "a3", to_account_id: "a7", amount: 20 }),
        tool("c1", { result: "sent" }),
        { role: "assistant", content: "done, sent 20 to a7." },
      ],
      targets: [1, 3, 5],
    };
    const accountOpts = { pool: accounts, copies: 30, forbidden: new Set<string>() };
    // the distractor is a call, not a response: the responses-only rule sees nothing to drill
    expect(copyDrills([transfer], accountOpts, mulberry32(5))).toEqual([]);
    const drills = copyDrills(
      [transfer],
      { ...accountOpts, distractCalls: true, tool: "transfer" },
      mulberry32(5),
    );
    expect(drills).toHaveLength(30);
    const targets = new Set<string>();
    for (const d of drills) {
      const [, from, to] = /from account (\w+) to account (\w+)/.exec(d.messages[0]!.content)!;
      expect(d.messages[1]!.toolCalls![0]!.arguments).toEqual({ account_id: from });
      expect(d.messages[3]!.toolCalls![0]!.arguments).toEqual({
        account_id: from,
        to_account_id: to,
        amount: 20,
      });
      expect(d.messages[5]!.content).toBe(`done, sent 20 to ${to}.`);
      expect(to).not.toBe("a7");
      targets.add(to!);
    }
    expect(targets.size).toBe(accounts.length - 1);
    // only the named tool's calls are drilled
    expect(
      copyDrills([transfer], { ...accountOpts, distractCalls: true, tool: "freeze_account" }, mulberry32(5)),
    ).toEqual([]);
  });

  it("the demo's transfer drills come after the rest of the data, which stays as it was", () => {
    const data = buildDemoData(QUICK_PLAN, 3);
    const base = demoSftData(data, { ...QUICK_PLAN, sftTargetDrills: 0 }, 3);
    const withDrills = demoSftData(data, QUICK_PLAN, 3);
    expect(withDrills.act.slice(0, base.act.length)).toEqual(base.act);
    expect(withDrills.rehearse).toEqual(base.rehearse);
    const drills = withDrills.act.slice(base.act.length);
    expect(drills.length).toBeGreaterThan(0);
    const evalRequests = new Set(data.evalRequests);
    for (const d of drills)
      for (const m of d.messages) if (m.role === "user") expect(evalRequests.has(m.content)).toBe(false);
    for (const d of drills)
      expect(d.messages.some((m) => m.toolCalls?.some((c) => c.name === "transfer"))).toBe(true);
  });
});
