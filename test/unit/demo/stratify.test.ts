import { describe, expect, it } from "vitest";
import type { Rule, Task } from "../../../src/core/task.js";
import {
  buildDemoData,
  envlessEvalPool,
  envlessTasksPerDomain,
  EVAL_POOL_FACTOR,
} from "../../../src/demo/data.js";
import { ENVLESS_DOMAINS, FULL_PLAN } from "../../../src/demo/layout.js";
import { situationOf, stratifiedPick } from "../../../src/demo/stratify.js";

const task = (id: string, turns: Rule[][]): Task =>
  ({
    id,
    checklists: [turns.map((rules) => rules.map((rule) => ({ question: "q", rule })))],
  }) as unknown as Task;

// Three situations: a lookup, a refusal-free write, a listing.
const lookup = (id: string, item = "a1") =>
  task(id, [
    [
      { call: "get_account", args: { account_id: item } },
      { forbid: "transfer" },
      { reply_contains: ["open"] },
    ],
  ]);
const write = (id: string) =>
  task(id, [
    [{ call: "get_account" }, { call: "transfer", args: { amount: 10 } }, { reply_contains: ["30"] }],
  ]);
const listing = (id: string) =>
  task(id, [[{ call: "find_customer" }, { call: "list_accounts" }, { reply_contains: ["a1", "a2"] }]]);

describe("situationOf", () => {
  it("reads the situation from the checklist's shapes, not its entities or values", () => {
    expect(situationOf(lookup("x", "a1"))).toBe(situationOf(lookup("y", "a9")));
    expect(situationOf(lookup("x"))).not.toBe(situationOf(write("y")));
    expect(situationOf(write("x"))).not.toBe(situationOf(listing("y")));
    // forbidding one target (a similar entity) differs from forbidding the tool; a second turn counts
    expect(situationOf(task("a", [[{ forbid: "transfer" }]]))).not.toBe(
      situationOf(task("b", [[{ forbid: "transfer", args: { account_id: "a2" } }]])),
    );
    expect(situationOf(task("a", [[{ call: "get_account" }]]))).not.toBe(
      situationOf(task("b", [[{ call: "get_account" }], [{ call: "get_account" }]])),
    );
  });
});

describe("stratifiedPick", () => {
  const ref = [...Array.from({ length: 6 }, (_, i) => lookup(`r${i}`)), write("w0"), write("w1")];

  it("follows the reference's mix, in pool order", () => {
    const pool = [
      write("p0"),
      lookup("p1"),
      write("p2"),
      lookup("p3"),
      write("p4"),
      lookup("p5"),
      lookup("p6"),
    ];
    expect(stratifiedPick(pool, ref, 4).map((t) => t.id)).toEqual(["p0", "p1", "p3", "p5"]);
  });

  it("leaves situations the pool lacks out of the mix, and fills a short situation from the rest", () => {
    const withListing = [...ref, listing("l0"), listing("l1"), listing("l2"), listing("l3")]; // 6:2:4
    const pool = [lookup("p0"), lookup("p1"), write("p2"), lookup("p3"), lookup("p4"), write("p5")];
    // no listing in the pool: 6:2 over the lookups and writes, 3 of 4 lookups
    expect(stratifiedPick(pool, withListing, 4).map((t) => t.id)).toEqual(["p0", "p1", "p2", "p3"]);
    // one lookup where three are due: the short places go to the pool's next tasks
    const short = [write("q0"), write("q1"), lookup("q2"), write("q3"), write("q4")];
    expect(stratifiedPick(short, ref, 4).map((t) => t.id)).toEqual(["q0", "q1", "q2", "q3"]);
    expect(stratifiedPick(short, ref, 9)).toHaveLength(5);
  });

  it("brings the demo's env-less set closer to its training logs' mix than the unstratified draw", () => {
    const per = envlessTasksPerDomain(FULL_PLAN);
    const mix = (tasks: readonly Task[]) => {
      const m = new Map<string, number>();
      for (const t of tasks) m.set(situationOf(t), (m.get(situationOf(t)) ?? 0) + 1 / tasks.length);
      return m;
    };
    // total variation distance between two mixes of situations
    const distance = (a: Map<string, number>, b: Map<string, number>) =>
      [...new Set([...a.keys(), ...b.keys()])].reduce(
        (d, s) => d + Math.abs((a.get(s) ?? 0) - (b.get(s) ?? 0)),
        0,
      ) / 2;
    for (const seed of [3, 9]) {
      const data = buildDemoData(FULL_PLAN, seed);
      for (const domain of ENVLESS_DOMAINS) {
        const picked = data.eval.envless.filter((t) => t.domain === domain);
        expect(picked).toHaveLength(per);
        const pool = envlessEvalPool(FULL_PLAN, seed, domain);
        expect(pool).toHaveLength(EVAL_POOL_FACTOR * per);
        const poolIds = new Set(pool.map((t) => t.id));
        expect(picked.every((t) => poolIds.has(t.id))).toBe(true);
        const train = mix(data.train[domain]!);
        const stratified = distance(mix(picked), train);
        const unstratified = distance(mix(pool.slice(0, per)), train);
        expect(stratified).toBeLessThan(unstratified);
      }
    }
  });
});
