import type { Command } from "commander";
import * as report from "./commands/report.js";

/**
 * Every subcommand lives in its own file under `commands/` and exports `register(program)`.
 * Add one import and one list entry per command.
 */
const commands: { register(program: Command): void }[] = [report];

export function registerCommands(program: Command): void {
  for (const c of commands) c.register(program);
}
