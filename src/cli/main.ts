#!/usr/bin/env node
import { errorLine } from "../core/errors.js";
import { envaceProgram } from "./commands.js";
// The toolworld demo domains: `generator: toolworld` task sources and their gold runs (envace train).
import "../envs/toolworld/register.js";

const program = envaceProgram();

program.parseAsync(process.argv).catch((err: unknown) => {
  process.stderr.write(`envace: ${errorLine(err)}\n`);
  process.exit(1);
});
