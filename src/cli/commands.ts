import type { Command } from "commander";

/**
 * Every subcommand lives in its own file under `commands/` and exports `register(program)`.
 * Add one line here per command.
 */
export function registerCommands(_program: Command): void {}
