import { describe, expect, it } from "vitest";
import { flagsBenchIgnores } from "../../../src/cli/bench-only-flags.js";

describe("flagsBenchIgnores", () => {
  it("passes options the bench reads, and options every bench reads", () => {
    expect(
      flagsBenchIgnores("tasks", { logSamples: "s.jsonl", env: "none", judgeModel: "m" }),
    ).toBeUndefined();
    expect(
      flagsBenchIgnores("vita", { lang: "zh", dumpDb: "d", userEndpoint: "u", userModel: "m" }),
    ).toBeUndefined();
    expect(
      flagsBenchIgnores("toolworld", { policy: "gold", limit: 3, trials: 2, apiKey: "k" }),
    ).toBeUndefined();
  });

  it("names each option the bench would ignore, with the benches that read it", () => {
    expect(flagsBenchIgnores("toolworld", { logSamples: "s.jsonl", maxErrors: 3 })).toBe(
      "toolworld does not read --log-samples (tasks only), --max-errors (tau2 only)",
    );
    expect(flagsBenchIgnores("bfcl", { tools: "t.json" })).toBe("bfcl does not read --tools (finmcp only)");
    // test-time rehearsal: finmcp and task files run without it; --rehearsal's default "none" is no request
    expect(flagsBenchIgnores("finmcp", { rehearsal: "none" })).toBeUndefined();
    expect(flagsBenchIgnores("tasks", { rehearsal: "parallel:4", guardTools: "w" })).toBe(
      "tasks does not read --rehearsal (tau2, vita, bfcl, toolworld only), --guard-tools (tau2, vita, bfcl, toolworld only)",
    );
    expect(flagsBenchIgnores("bfcl", { checkpoint: "dir" })).toMatch(
      /--checkpoint \(tau2, vita, tasks, toolworld only\)/,
    );
  });

  it("lets the paper's suite take what its benches read, and nothing only task files read", () => {
    expect(
      flagsBenchIgnores("suite", { userEndpoint: "u", judgeEndpoint: "j", bfclMode: "fc", tools: "t.json" }),
    ).toBeUndefined();
    expect(flagsBenchIgnores("suite", { logSamples: "s.jsonl" })).toMatch(
      /suite does not read --log-samples/,
    );
  });
});
