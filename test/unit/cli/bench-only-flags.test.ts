import { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { getBench, type BenchRunner } from "../../../src/bench/registry.js";
import { flagsBenchIgnores, typedOptions, type TypedOption } from "../../../src/cli/bench-only-flags.js";
import { envaceProgram } from "../../../src/cli/commands.js"; // registers the built-in benches

/** `envace eval`'s own options, by key: the flags the messages must name. */
const evalCommand = envaceProgram().commands.find((c) => c.name() === "eval");

/** The message for `--bench NAME` given the typed option keys (with `envace eval`'s flags). */
function ignores(bench: string, keys: string[]): string | undefined {
  const runner: BenchRunner | undefined = getBench(bench);
  if (!runner) throw new Error(`no bench ${bench}`);
  const typed: TypedOption[] = keys.map((key) => {
    const opt = evalCommand?.options.find((o) => o.attributeName() === key);
    if (!opt?.long) throw new Error(`envace eval has no option ${key}`);
    return { key, flag: opt.long };
  });
  return flagsBenchIgnores(bench, runner, typed);
}

describe("flagsBenchIgnores, on the registered benches", () => {
  it("passes options the bench reads, and options every bench reads", () => {
    expect(ignores("tasks", ["logSamples", "env", "judgeModel", "checkpoint"])).toBeUndefined();
    expect(ignores("vita", ["lang", "dumpDb", "userEndpoint", "userModel", "rehearsal"])).toBeUndefined();
    expect(ignores("tau2", ["maxErrors", "checkpoint", "rehearsal", "guardTools"])).toBeUndefined();
    expect(ignores("toolworld", ["policy", "limit", "trials", "apiKey", "json", "bench"])).toBeUndefined();
  });

  it("names each option the bench would ignore, with the benches that read it", () => {
    expect(ignores("toolworld", ["logSamples", "maxErrors"])).toBe(
      "toolworld does not read --log-samples (tasks only), --max-errors (tau2, suite only)",
    );
    expect(ignores("bfcl", ["tools"])).toBe("bfcl does not read --tools (finmcp, suite only)");
    // test-time rehearsal: FinMCP-Bench runs without it
    expect(ignores("finmcp", ["rehearsal", "guardTools"])).toBe(
      "finmcp does not read --rehearsal (tau2, toolworld, tasks, vita, suite, bfcl only), --guard-tools (tau2, toolworld, tasks, vita, suite, bfcl only)",
    );
    expect(ignores("tasks", ["rehearsal", "guardTools", "noteUse"])).toBeUndefined();
    expect(ignores("bfcl", ["checkpoint"])).toBe(
      "bfcl does not read --checkpoint (tau2, toolworld, tasks, vita, suite only)",
    );
  });

  it("lets the paper's suite take what its benches read, and nothing only task files read", () => {
    expect(ignores("suite", ["userEndpoint", "judgeEndpoint", "bfclMode", "tools"])).toBeUndefined();
    expect(ignores("suite", ["logSamples"])).toBe("suite does not read --log-samples (tasks only)");
  });
});

describe("typedOptions", () => {
  function typed(args: string[], env: Record<string, string> = {}): string[] {
    const saved = process.env.ENVACE_TEST_SEARCH_KEY;
    if (env.ENVACE_TEST_SEARCH_KEY !== undefined)
      process.env.ENVACE_TEST_SEARCH_KEY = env.ENVACE_TEST_SEARCH_KEY;
    try {
      const cmd = new Command()
        .exitOverride()
        .option("--rehearsal <mode>", "", "none")
        .option("--log-samples <file>")
        .option("--lang <lang>")
        .addOption(new Option("--search-api-key <key>").env("ENVACE_TEST_SEARCH_KEY"));
      cmd.parse(args, { from: "user" });
      return typedOptions(cmd).map((t) => `${t.key} ${t.flag}`);
    } finally {
      if (saved === undefined) delete process.env.ENVACE_TEST_SEARCH_KEY;
      else process.env.ENVACE_TEST_SEARCH_KEY = saved;
    }
  }

  it("keeps what the user typed: commander's key and the flag as typed", () => {
    expect(typed(["--log-samples", "s.jsonl", "--rehearsal", "parallel:4"]).sort()).toEqual([
      "logSamples --log-samples",
      "rehearsal --rehearsal",
    ]);
    expect(typed(["--search-api-key", "k"])).toEqual(["searchApiKey --search-api-key"]);
  });

  it("leaves out defaults, the default typed out, and values from the environment", () => {
    expect(typed([])).toEqual([]);
    expect(typed(["--rehearsal", "none"])).toEqual([]);
    expect(typed([], { ENVACE_TEST_SEARCH_KEY: "k" })).toEqual([]);
    expect(typed(["--lang", "zh"], { ENVACE_TEST_SEARCH_KEY: "k" })).toEqual(["lang --lang"]);
  });
});
