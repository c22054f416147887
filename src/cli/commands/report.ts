import type { Command } from "commander";
import { writeReport } from "../../report/index.js";

export function register(program: Command): void {
  program
    .command("report")
    .description(
      "Rebuild report.html and results.md of a run directory: a demo run (results.json and metrics) or a train run (`envace train`'s out directory: curves per role from metrics.jsonl)",
    )
    .argument("<dir>", "the run directory (e.g. runs/demo-20261130-0512, or the --out of envace train)")
    .option("--json", "print {report} as JSON on stdout")
    .action(async (dir: string, opts: { json?: boolean }) => {
      const path = await writeReport(dir);
      if (opts.json) process.stdout.write(JSON.stringify({ report: path }) + "\n");
      else process.stdout.write(`report written to ${path}\n`);
    });
}
