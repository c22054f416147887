import { describe, expect, it } from "vitest";
import type { ToolCall } from "../../../src/core/messages.js";
import type { ToolResult } from "../../../src/core/tools.js";
import { DOMAIN_SPECS } from "../../../src/envs/toolworld/domains/index.js";
import {
  createToolworldEnv,
  TOOLWORLD_DOMAINS,
  TOOLWORLD_HELDOUT_DOMAINS,
  TOOLWORLD_TRAIN_DOMAINS,
  type ToolworldEnvironment,
  type ToolworldState,
} from "../../../src/envs/toolworld/index.js";

let n = 0;
const call = (name: string, args: Record<string, unknown>): ToolCall => ({
  id: `t${n++}`,
  name,
  arguments: args,
});

function okValue(r: ToolResult): Record<string, unknown> {
  if (!r.ok) throw new Error(`expected ok, got ${r.error.code}: ${r.error.message}`);
  return JSON.parse(r.content) as Record<string, unknown>;
}

function expectError(r: ToolResult, code: string, message?: RegExp): void {
  expect(r.ok).toBe(false);
  if (r.ok) return;
  expect(r.error.code).toBe(code);
  if (message) expect(r.error.message).toMatch(message);
}

/** The first world (by seed) whose initial state satisfies `pred`. */
function findWorld(domain: string, pred: (s: ToolworldState) => boolean): ToolworldEnvironment {
  for (let seed = 0; seed < 20_000; seed++) {
    const env = createToolworldEnv({ domain, seed });
    if (pred(env.snapshot())) return env;
  }
  throw new Error(`no ${domain} world matches`);
}

const itemWith = (s: ToolworldState, p: (status: string) => boolean) =>
  Object.keys(s.items)
    .sort()
    .find((id) => p(s.items[id]?.status ?? ""));

describe("toolworld domains", () => {
  it("has at least three training domains and one held-out domain", () => {
    expect(TOOLWORLD_TRAIN_DOMAINS.length).toBeGreaterThanOrEqual(3);
    expect(TOOLWORLD_HELDOUT_DOMAINS.length).toBeGreaterThanOrEqual(1);
    expect([...TOOLWORLD_TRAIN_DOMAINS, ...TOOLWORLD_HELDOUT_DOMAINS].sort()).toEqual(
      [...TOOLWORLD_DOMAINS].sort(),
    );
  });

  it("rejects an unknown domain with a typed error", () => {
    expect(() => createToolworldEnv({ domain: "nope", seed: 1 })).toThrow(/unknown toolworld domain/);
  });
});

for (const d of DOMAIN_SPECS) {
  describe(`toolworld ${d.name}: common tools`, () => {
    it("exposes 3-5 tools with the shared find/list/get/act conventions", () => {
      const env = createToolworldEnv({ domain: d.name, seed: 1 });
      const names = env.tools().map((t) => t.name);
      expect(names.length).toBeGreaterThanOrEqual(3);
      expect(names.length).toBeLessThanOrEqual(5);
      expect(names.slice(0, 3)).toEqual([d.owner.findTool, d.item.listTool, d.item.getTool]);
      expect(names[0]).toMatch(/^find_/);
      expect(names[1]).toMatch(/^list_/);
      expect(names[2]).toMatch(/^get_/);
    });

    it("is deterministic per seed and snapshot() is a deep copy", () => {
      const a = createToolworldEnv({ domain: d.name, seed: 42 });
      const b = createToolworldEnv({ domain: d.name, seed: 42 });
      const c = createToolworldEnv({ domain: d.name, seed: 43 });
      expect(a.hash()).toBe(b.hash());
      expect(a.hash()).not.toBe(c.hash());
      expect(a.hash()).toMatch(/^[0-9a-f]{64}$/);
      const snap = a.snapshot();
      const first = Object.keys(snap.items)[0] as string;
      (snap.items[first] as { status: string }).status = "mutated";
      expect(a.hash()).toBe(b.hash());
    });

    it("find → list → get happy path returns short JSON from the state", async () => {
      const env = createToolworldEnv({ domain: d.name, seed: 7 });
      const s = env.snapshot();
      const [ownerId, owner] = Object.entries(s.owners)[0] as [string, { key: string; items: string[] }];
      expect(okValue(await env.call(call(d.owner.findTool, { [d.owner.keyField]: owner.key })))).toEqual({
        [d.owner.idKey]: ownerId,
      });
      expect(okValue(await env.call(call(d.item.listTool, { [d.owner.idKey]: ownerId })))).toEqual({
        [d.item.plural]: owner.items,
      });
      const itemId = owner.items[0] as string;
      const item = s.items[itemId] as { status: string; detail: string | number };
      expect(okValue(await env.call(call(d.item.getTool, { [d.item.idKey]: itemId })))).toEqual({
        status: item.status,
        [d.item.detailField]: item.detail,
      });
      expect(env.hash()).toBe(createToolworldEnv({ domain: d.name, seed: 7 }).hash());
      expect(env.callCount).toBe(3);
    });

    it("unknown keys and ids, bad arguments and unknown tools are errors that leave the state unchanged", async () => {
      const env = createToolworldEnv({ domain: d.name, seed: 9 });
      const before = env.hash();
      const used = new Set(Object.values(env.snapshot().owners).map((o) => o.key));
      const strangerKey = d.owner.keys.find((k) => !used.has(k)) as string;
      expectError(
        await env.call(call(d.owner.findTool, { [d.owner.keyField]: strangerKey })),
        "TOOL_EXECUTION_ERROR",
        /not found/,
      );
      expectError(
        await env.call(call(d.item.listTool, { [d.owner.idKey]: `${d.owner.idPrefix}999` })),
        "TOOL_EXECUTION_ERROR",
        /not found/,
      );
      expectError(
        await env.call(call(d.item.getTool, { [d.item.idKey]: `${d.item.idPrefix}999` })),
        "TOOL_EXECUTION_ERROR",
        new RegExp(`${d.item.noun} ${d.item.idPrefix}999 not found`),
      );
      for (const a of d.actions) {
        expectError(
          await env.call(call(a.tool, { [d.item.idKey]: `${d.item.idPrefix}999` })),
          "TOOL_EXECUTION_ERROR",
          /not found/,
        );
      }
      expectError(await env.call(call(d.item.getTool, {})), "INVALID_PARAMETERS");
      expectError(await env.call(call(d.item.getTool, { [d.item.idKey]: 5 })), "INVALID_PARAMETERS");
      expectError(
        await env.call(call(d.item.getTool, { [d.item.idKey]: "x", extra: 1 })),
        "INVALID_PARAMETERS",
      );
      expectError(await env.call(call("drop_tables", {})), "TOOL_NOT_AVAILABLE");
      expect(env.hash()).toBe(before);
    });

    for (const a of d.actions) {
      it(`${a.tool}: acts when the status allows it, refuses otherwise`, async () => {
        const okEnv = findWorld(d.name, (s) => itemWith(s, (st) => a.from.includes(st)) !== undefined);
        const before = okEnv.snapshot();
        const id = itemWith(before, (st) => a.from.includes(st)) as string;
        expect(okValue(await okEnv.call(call(a.tool, { [d.item.idKey]: id })))).toEqual({ status: a.to });
        const after = okEnv.snapshot();
        expect(after.items[id]?.status).toBe(a.to);
        // Only that item's status changed.
        (after.items[id] as { status: string }).status = before.items[id]?.status ?? "";
        expect(after).toEqual(before);
        // Acting again is refused: the new status no longer allows it.
        if (!a.from.includes(a.to)) {
          expectError(
            await okEnv.call(call(a.tool, { [d.item.idKey]: id })),
            "TOOL_EXECUTION_ERROR",
            new RegExp(`is ${a.to}`),
          );
        }

        const noEnv = findWorld(d.name, (s) => itemWith(s, (st) => !a.from.includes(st)) !== undefined);
        const hash = noEnv.hash();
        const bad = itemWith(noEnv.snapshot(), (st) => !a.from.includes(st)) as string;
        const status = noEnv.snapshot().items[bad]?.status as string;
        expectError(
          await noEnv.call(call(a.tool, { [d.item.idKey]: bad })),
          "TOOL_EXECUTION_ERROR",
          new RegExp(`${d.item.noun} ${bad} is ${status}`),
        );
        expect(noEnv.hash()).toBe(hash);
      });
    }
  });
}

describe("toolworld bank: transfer", () => {
  const open = (s: ToolworldState) =>
    Object.keys(s.items)
      .sort()
      .filter((i) => s.items[i]?.status === "open");

  it("moves money between open accounts", async () => {
    const env = findWorld(
      "bank",
      (s) => open(s).filter((i) => Number(s.items[i]?.detail) >= 30).length >= 1 && open(s).length >= 2,
    );
    const s = env.snapshot();
    const from = open(s).find((i) => Number(s.items[i]?.detail) >= 30) as string;
    const to = open(s).find((i) => i !== from) as string;
    const fromBal = Number(s.items[from]?.detail);
    const toBal = Number(s.items[to]?.detail);
    expect(
      okValue(await env.call(call("transfer", { account_id: from, to_account_id: to, amount: 30 }))),
    ).toEqual({ result: "sent" });
    const after = env.snapshot();
    expect(after.items[from]?.detail).toBe(fromBal - 30);
    expect(after.items[to]?.detail).toBe(toBal + 30);
  });

  it("refuses overdrafts, non-open accounts, self-transfers and bad amounts without changing state", async () => {
    const env = findWorld(
      "bank",
      (s) =>
        open(s).length >= 2 &&
        Object.values(s.items).some((i) => i.status !== "open") &&
        open(s).some((i) => Number(s.items[i]?.detail) < 300),
    );
    const s = env.snapshot();
    const hash = env.hash();
    const [a, b] = open(s) as [string, string];
    const blocked = Object.keys(s.items).find((i) => s.items[i]?.status !== "open") as string;
    const balA = Number(s.items[a]?.detail);
    expectError(
      await env.call(call("transfer", { account_id: a, to_account_id: b, amount: balA + 10 })),
      "TOOL_EXECUTION_ERROR",
      new RegExp(`has only ${balA}`),
    );
    expectError(
      await env.call(call("transfer", { account_id: blocked, to_account_id: a, amount: 10 })),
      "TOOL_EXECUTION_ERROR",
      /is (frozen|closed)/,
    );
    expectError(
      await env.call(call("transfer", { account_id: a, to_account_id: blocked, amount: 10 })),
      "TOOL_EXECUTION_ERROR",
      /is (frozen|closed)/,
    );
    expectError(
      await env.call(call("transfer", { account_id: a, to_account_id: a, amount: 10 })),
      "TOOL_EXECUTION_ERROR",
      /itself/,
    );
    expectError(
      await env.call(call("transfer", { account_id: a, to_account_id: "a999", amount: 10 })),
      "TOOL_EXECUTION_ERROR",
      /not found/,
    );
    expectError(
      await env.call(call("transfer", { account_id: a, to_account_id: b, amount: 0 })),
      "INVALID_PARAMETERS",
    );
    expectError(
      await env.call(call("transfer", { account_id: a, to_account_id: b, amount: "10" })),
      "INVALID_PARAMETERS",
    );
    expect(env.hash()).toBe(hash);
  });
});

describe("toolworld calendar: move_event", () => {
  const twoLive = (s: ToolworldState) =>
    Object.values(s.owners).find(
      (o) => o.items.length === 2 && o.items.every((i) => s.items[i]?.status === "confirmed"),
    );

  it("moves a confirmed event to a free day and refuses a day with another event", async () => {
    const env = findWorld("calendar", (s) => twoLive(s) !== undefined);
    const s = env.snapshot();
    const [e1, e2] = (twoLive(s) as { items: string[] }).items as [string, string];
    const hash = env.hash();
    const clashDay = s.items[e2]?.detail as string;
    expectError(
      await env.call(call("move_event", { event_id: e1, day: clashDay })),
      "TOOL_EXECUTION_ERROR",
      new RegExp(`conflicts with ${e2}`),
    );
    expect(env.hash()).toBe(hash);
    const free = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].find(
      (day) => day !== clashDay && day !== s.items[e1]?.detail,
    ) as string;
    expect(okValue(await env.call(call("move_event", { event_id: e1, day: free })))).toEqual({
      result: "moved",
    });
    expect(env.snapshot().items[e1]?.detail).toBe(free);
  });

  it("refuses to move events that are not confirmed, unknown events and unknown days", async () => {
    const env = findWorld("calendar", (s) => Object.values(s.items).some((i) => i.status !== "confirmed"));
    const s = env.snapshot();
    const hash = env.hash();
    const id = Object.keys(s.items).find((i) => s.items[i]?.status !== "confirmed") as string;
    expectError(
      await env.call(call("move_event", { event_id: id, day: "monday" })),
      "TOOL_EXECUTION_ERROR",
      /is (past|cancelled)/,
    );
    expectError(
      await env.call(call("move_event", { event_id: "e999", day: "monday" })),
      "TOOL_EXECUTION_ERROR",
      /not found/,
    );
    expectError(await env.call(call("move_event", { event_id: id, day: "someday" })), "INVALID_PARAMETERS");
    expect(env.hash()).toBe(hash);
  });
});
