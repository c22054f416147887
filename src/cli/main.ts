#!/usr/bin/env node
import { Command } from "commander";
import { errorLine } from "../core/errors.js";
import { registerCommands } from "./commands.js";
// The toolworld demo domains: `generator: toolworld` task sources and their gold runs (envace train).
import "../envs/toolworld/register.js";

const program = new Command();
program
  .name("envace")
  .description(
    "Train and run tool-using LLM agents by world rehearsal (EnvACE): the policy acts, then rehearses\n" +
      "the environment's response, and both roles learn from task success with role-wise GRPO.",
  )
  .version("0.1.0")
  .showHelpAfterError();
registerCommands(program);

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`envace: ${errorLine(err)}\n`);
  process.exit(1);
});
