import { describe, expect, it } from "vitest";
import type { RehearsalProbe, ScoredProbe } from "../../../src/demo/fidelity-probes.js";
import { agreementWhere, rehearserAgreement } from "../../../src/demo/rehearser-agreement.js";

const probe = (n: number) => ({ call: { name: `t${n}`, arguments: {} } }) as unknown as RehearsalProbe;
const scored = (p: RehearsalProbe, rehearsed: unknown, exact: boolean): ScoredProbe => ({
  tool: p.call.name,
  probe: p,
  rehearsed,
  score: { exact, f1: exact ? 1 : 0 },
});

describe("rehearserAgreement", () => {
  const probes = [0, 1, 2, 3, 4, 5].map(probe);

  it("counts alike answers (key order aside) and, where they differ, which one is right", () => {
    const first = [
      scored(probes[0]!, { id: "u1", ok: true }, true),
      scored(probes[1]!, { error: "not found" }, false),
      scored(probes[2]!, { balance: 10 }, true),
      scored(probes[3]!, { balance: 12 }, false),
      scored(probes[4]!, { a: 1 }, false),
      scored(probes[5]!, undefined, false),
    ];
    const second = [
      scored(probes[0]!, { ok: true, id: "u1" }, true), // same answer, keys reordered
      scored(probes[1]!, { error: "not found" }, false), // same, both wrong
      scored(probes[2]!, { balance: 11 }, false), // only the first right
      scored(probes[3]!, { balance: 10 }, true), // only the second right
      scored(probes[4]!, { a: 2 }, false), // neither
      scored(probes[5]!, undefined, false), // both unparsed: alike
    ];
    expect(rehearserAgreement(first, second)).toEqual({
      probes: 6,
      same: 3,
      sameRight: 1,
      onlyFirstRight: 1,
      onlySecondRight: 1,
      neitherRight: 1,
    });
  });

  it("refuses two lists that do not score the same probes in the same order", () => {
    const a = [scored(probes[0]!, {}, true), scored(probes[1]!, {}, true)];
    expect(() => rehearserAgreement(a, [...a].reverse())).toThrow(/same probes in the same order/);
    expect(() => rehearserAgreement(a, a.slice(1))).toThrow(/same probes/);
  });
});

describe("agreementWhere", () => {
  const probes = [0, 1, 2, 3].map(probe);
  const first = [
    scored(probes[0]!, { a: 1 }, true),
    scored(probes[1]!, { a: 2 }, false),
    scored(probes[2]!, { a: 3 }, true),
    scored(probes[3]!, { a: 4 }, true),
  ];
  const second = [
    scored(probes[0]!, { a: 1 }, true),
    scored(probes[1]!, { a: 9 }, true),
    scored(probes[2]!, { a: 8 }, false),
    scored(probes[3]!, { a: 4 }, true),
  ];

  it("figures the selected probes only, both lists alike, with each side's fidelity there", () => {
    const even = agreementWhere(first, second, (p) => ["t0", "t2"].includes(p.call.name));
    expect(even).toEqual({
      probes: 2,
      same: 1,
      sameRight: 1,
      onlyFirstRight: 1,
      onlySecondRight: 0,
      neitherRight: 0,
      fidelity: { first: 1, second: 0.5 },
    });
    const all = agreementWhere(first, second);
    expect([all.probes, all.same, all.onlyFirstRight, all.onlySecondRight]).toEqual([4, 2, 1, 1]);
    expect(all.fidelity).toEqual({ first: 0.75, second: 0.75 });
  });

  it("gives zeros, not NaN, where nothing is selected", () => {
    const none = agreementWhere(first, second, () => false);
    expect(none.probes).toBe(0);
    expect(none.fidelity).toEqual({ first: 0, second: 0 });
  });
});
