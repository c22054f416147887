import type { Command } from "commander";
import * as report from "./commands/report.js";
import * as mcp from "./commands/mcp.js";
import * as data from "./commands/data.js";
import * as worker from "./commands/worker.js";
import * as train from "./commands/train.js";
import * as evalCommand from "./commands/eval.js";
import * as demo from "./commands/demo.js";
import * as tasks from "./commands/tasks.js";

/**
 * Every subcommand lives in its own file under `commands/` and exports `register(program)`.
 * Add one import and one list entry per command.
 */
const commands: { register(program: Command): void }[] = [
  demo,
  train,
  evalCommand,
  worker,
  mcp,
  tasks,
  data,
  report,
];

export function registerCommands(program: Command): void {
  for (const c of commands) c.register(program);
}
