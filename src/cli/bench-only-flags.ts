import type { Command } from "commander";
import { benchesReading, unreadOptions, type BenchRunner } from "../bench/registry.js";

/**
 * Why the options the user typed cannot go to `runner` (registered as `bench`), or undefined: the
 * bench-only options it does not read (`BenchRunner.reads`), each with the benches that read it.
 * Every bench takes the same flat options, so without this `--rehearsal` on a task file (say) would
 * run without rehearsal and say nothing. Only typed options count (`typedOptionKeys`).
 */
export function flagsBenchIgnores(
  bench: string,
  runner: BenchRunner,
  typed: readonly string[],
): string | undefined {
  const ignored = unreadOptions(runner, typed);
  if (ignored.length === 0) return undefined;
  const why = ignored.map((key) => `${flagOf(key)} (${benchesReading(key).join(", ")} only)`);
  return `${bench} does not read ${why.join(", ")}`;
}

/**
 * The option keys of `cmd` that the user typed with a value other than the default: a default, the
 * default typed out (`--rehearsal none`, which every bench honours) or a value from the environment
 * (`SERPAPI_API_KEY`) never refuses a run.
 */
export function typedOptionKeys(cmd: Command): string[] {
  const values = cmd.opts();
  return cmd.options
    .filter((opt) => {
      const key = opt.attributeName();
      return cmd.getOptionValueSource(key) === "cli" && values[key] !== opt.defaultValue;
    })
    .map((opt) => opt.attributeName());
}

/** `logSamples` → `--log-samples`: commander's option key back to the flag the user typed. */
function flagOf(key: string): string {
  return "--" + key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}
