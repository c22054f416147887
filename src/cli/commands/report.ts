import type { Command } from "commander";
import { writeReport } from "../../report/index.js";

export function register(program: Command): void {
  program
    .command("report")
    .description(
      "Rebuild report.html and results.md of a demo run directory from its results.json and metrics",
    )
    .argument("<dir>", "the run directory (e.g. runs/demo-20261130-0512)")
    .option("--json", "print {report} as JSON on stdout")
    .action(async (dir: string, opts: { json?: boolean }) => {
      const path = await writeReport(dir);
      if (opts.json) process.stdout.write(JSON.stringify({ report: path }) + "\n");
      else process.stdout.write(`report written to ${path}\n`);
    });
}
