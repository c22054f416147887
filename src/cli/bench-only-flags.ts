import type { Command } from "commander";
import { benchesReading, unreadOptions, type BenchRunner } from "../bench/registry.js";

/** An option the user typed: its key in the parsed options and its flag as `--help` shows it. */
export interface TypedOption {
  key: string;
  flag: string;
}

/**
 * Why the options the user typed cannot go to `runner` (registered as `bench`), or undefined: the
 * bench-only options it does not read (`BenchRunner.reads`), each with the benches that read it.
 * Every bench takes the same flat options, so without this `--rehearsal` on a task file (say) would
 * run without rehearsal and say nothing. Only typed options count (`typedOptions`).
 */
export function flagsBenchIgnores(
  bench: string,
  runner: BenchRunner,
  typed: readonly TypedOption[],
): string | undefined {
  const ignored = unreadOptions(
    runner,
    typed.map((t) => t.key),
  );
  if (ignored.length === 0) return undefined;
  const flagOf = new Map(typed.map((t) => [t.key, t.flag]));
  const why = ignored.map((key) => `${flagOf.get(key) ?? key} (${benchesReading(key).join(", ")} only)`);
  return `${bench} does not read ${why.join(", ")}`;
}

/**
 * The options of `cmd` that the user typed with a value other than the default: a default, the
 * default typed out (`--rehearsal none`, which every bench honours) or a value from the environment
 * (`SERPAPI_API_KEY`) never refuses a run. The flag is commander's own (`--log-samples`), not one
 * rebuilt from the key.
 */
export function typedOptions(cmd: Command): TypedOption[] {
  const values = cmd.opts();
  return cmd.options
    .filter((opt) => {
      const key = opt.attributeName();
      return cmd.getOptionValueSource(key) === "cli" && values[key] !== opt.defaultValue;
    })
    .map((opt) => ({ key: opt.attributeName(), flag: opt.long ?? opt.flags }));
}
