/** The paper's aggregate on fake benches with known scores (src/bench/suite/). */
import { mkdtempSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { EnvaceError } from "../../../src/core/errors.js";
import type { BenchOnlyOption, BenchRunner, BenchSummary, EvalOptions } from "../../../src/bench/registry.js";
import { paperTableMarkdown, runPaperSuite, suiteBenchRunner } from "../../../src/bench/suite/paper-suite.js";

const summary = (extra: Partial<BenchSummary>): BenchSummary => ({
  bench: "x",
  tasks: 1,
  trials: 1,
  pass_hat_k: {},
  reward_mean: 0,
  results: [],
  ...extra,
});

/** Fake benches: each variant's pass^1 comes from the table; `throws` variants refuse to run. */
function fakes(pass1: Record<string, number | null>, extra: Record<string, BenchRunner> = {}) {
  const seen: EvalOptions[] = [];
  const runner = (name: string, reads: BenchOnlyOption[]): BenchRunner => ({
    describe: name,
    reads,
    async run(o) {
      seen.push(o);
      const key = o.variant ? `${name}:${o.variant}` : name;
      if (!(key in pass1)) throw new EnvaceError("INVALID_DATA_FILE", `${key}: task file not found`);
      const p = pass1[key];
      return summary(p === null || p === undefined ? {} : { pass_hat_k: { 1: p } });
    },
  });
  const benches: Record<string, BenchRunner> = {
    bfcl: {
      describe: "bfcl",
      reads: ["bfclMode"],
      run: async () => summary({ overall: 0.6, not_run: ["web_search"], reward_mean: 0.1 }),
    },
    tau2: runner("tau2", ["dumpDb", "rehearsal"]),
    vita: runner("vita", ["lang", "dumpDb", "rehearsal"]),
    finmcp: {
      describe: "finmcp",
      reads: ["tools"],
      run: async (o) => (seen.push(o), summary({ metrics: { overall: { macro_f1: 0.5, n: 3 } } })),
    },
    ...extra,
  };
  return { get: (n: string) => benches[n], seen };
}

const base: EvalOptions = { variant: "", trials: 1, concurrency: 1 };

describe("the paper suite", () => {
  it("averages τ² and VitaBench domains, and Overall is the mean of BFCL, τ² and VitaBench", async () => {
    const dir = mkdtempSync(join(tmpdir(), "suite-"));
    mkdirSync(join(dir, "finmcp"));
    const { get, seen } = fakes({
      "tau2:airline": 0.5,
      "tau2:retail": 0.7,
      "tau2:telecom": 0.3,
      "vita:delivery": 0.2,
      "vita:instore": 0.4,
      "vita:ota": 0.1,
      "vita:cross_domain": 0.1,
    });
    const t = await runPaperSuite({ ...base, data: dir, limit: 2 }, get);
    expect(t.bfcl_overall).toBe(0.6);
    expect(t.tau2_average).toBeCloseTo(0.5, 12);
    expect(t.vita_average).toBeCloseTo(0.2, 12);
    expect(t.overall).toBeCloseTo((0.6 + 0.5 + 0.2) / 3, 12);
    expect(t.finmcp_tf1).toBe(0.5); // beside, not inside, Overall
    expect(t.parts.find((p) => p.bench === "bfcl")?.part_not_run).toEqual(["web_search"]);
    expect(seen.every((o) => o.limit === 2)).toBe(true); // --limit reaches every part
    expect(seen.find((o) => o.variant === "" && o.data?.endsWith("finmcp"))).toBeDefined();
    expect(paperTableMarkdown(t)).toContain("| 60.0 | 50.0 | 20.0 | 43.3 | 50.0 |");
  });

  it("reads what its parts read, and hands each part only what that part reads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "suite-"));
    mkdirSync(join(dir, "finmcp"));
    const { get, seen } = fakes({ "tau2:airline": 0.5, "vita:delivery": 0.2 });
    expect([...suiteBenchRunner(get).reads].sort()).toEqual(
      ["bfclMode", "dumpDb", "lang", "rehearsal", "tools"].sort(),
    );
    const given = { ...base, data: dir, lang: "zh", tools: "t.json", dumpDb: "out" } as EvalOptions;
    await runPaperSuite(given, get);
    const keys = (o: EvalOptions | undefined) =>
      Object.keys(o ?? {}).filter((k) => ["lang", "tools", "dumpDb"].includes(k));
    expect(keys(seen.find((o) => o.variant === "delivery"))).toEqual(["lang", "dumpDb"]);
    expect(keys(seen.find((o) => o.variant === "airline"))).toEqual(["dumpDb"]);
    expect(keys(seen.find((o) => o.data?.endsWith("finmcp")))).toEqual(["tools"]);
  });

  it("lists what did not run and leaves incomplete aggregates empty instead of averaging fewer", async () => {
    const { get } = fakes({
      "tau2:airline": 0.5,
      "tau2:retail": 0.7,
      "tau2:telecom": 0.3,
      "vita:delivery": null,
      "vita:instore": 0.4,
    });
    const t = await runPaperSuite({ ...base, data: mkdtempSync(join(tmpdir(), "suite-")) }, get);
    expect(t.tau2_average).toBeCloseTo(0.5, 12);
    expect(t.vita_average).toBeNull();
    expect(t.overall).toBeNull();
    expect(t.finmcp_tf1).toBeNull();
    expect(t.not_run).toEqual(
      expect.arrayContaining([
        "vita:delivery: ran, but nothing was scored (e.g. no judge)",
        "vita:ota: vita:ota: task file not found",
        expect.stringMatching(/^finmcp: no data/),
        "vita: average left out, not every part was scored",
        "overall: needs BFCL-v4, τ² and VitaBench all scored",
      ]),
    );
  });

  it("a missing bench and --rehearsal on benches without it are reported, not fatal", async () => {
    const { get } = fakes({ "tau2:airline": 1, "tau2:retail": 1, "tau2:telecom": 1 }, {});
    const noBfcl = (n: string) => (n === "bfcl" ? undefined : get(n));
    const t = await runPaperSuite({ ...base, rehearsal: "parallel:2" } as EvalOptions, noBfcl);
    expect(t.parts.find((p) => p.bench === "bfcl")?.not_run).toBe("bench not available in this build");
    expect(t.parts.find((p) => p.bench === "finmcp")?.not_run).toMatch(
      /--rehearsal parallel:2 is not implemented/,
    );
    // VitaBench supports rehearsal: its parts run (and here report what they report)
    expect(t.parts.find((p) => p.bench === "vita:delivery")?.not_run).toMatch(/task file not found/);
    expect(t.tau2_average).toBe(1);
  });
});
