import { Command } from "commander";
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

function registerCommands(program: Command): void {
  for (const c of commands) c.register(program);
}

/** The `envace` program with every subcommand registered (main.ts parses argv with it; tests walk it). */
export function envaceProgram(): Command {
  const program = new Command();
  program
    .name("envace")
    .description(
      "Train and run tool-using LLM agents by world rehearsal (EnvACE): the policy acts, then rehearses " +
        "the environment's response, and both roles learn from task success with role-wise GRPO.",
    )
    .version("0.1.0")
    .showHelpAfterError();
  registerCommands(program);
  return program;
}
