import type { Command } from "commander";
import { resolve } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { BENCHMARKS, fetchBenchmarkData, isBenchmark } from "../../bench/data/index.js";

interface FetchOptions {
  dir: string;
  json?: boolean;
  force?: boolean;
  baseUrl?: string;
}

/** `envace data fetch BENCH`: download a benchmark's public data from upstream GitHub. */
export function register(program: Command): void {
  const data = program.command("data").description("Benchmark data.");
  data
    .command("fetch")
    .description(
      `Download a benchmark's data (${BENCHMARKS.join(", ")}) from its upstream GitHub repository ` +
        "into DIR/<bench>/, laid out as the loaders' --data option expects. Files already there are " +
        "kept, so an interrupted run can simply be run again.",
    )
    .argument("<bench>", BENCHMARKS.join("|"))
    .option("--dir <dir>", "data directory", "./data")
    .option("--force", "download files that are already there again")
    .option("--base-url <url>", "mirror of raw.githubusercontent.com (default: env ENVACE_DATA_BASE_URL)")
    .option("--json", "print a JSON report on stdout")
    .action(async (bench: string, opts: FetchOptions) => {
      if (!isBenchmark(bench)) {
        throw new EnvaceError(
          "INVALID_CONFIG",
          `unknown benchmark '${bench}'; expected one of ${BENCHMARKS.join(", ")}`,
        );
      }
      const dir = resolve(opts.dir);
      const report = await fetchBenchmarkData(bench, {
        dir,
        force: opts.force,
        baseUrl: opts.baseUrl,
        onProgress: (p) =>
          process.stderr.write(
            `[${p.done}/${p.total}] ${p.status === "skipped" ? "kept" : "got "} ${p.file.dest} (${formatBytes(p.bytes)})\n`,
          ),
      });
      if (opts.json) {
        process.stdout.write(JSON.stringify(report) + "\n");
      } else {
        process.stdout.write(
          `${bench}: ${report.downloaded.length} downloaded (${formatBytes(report.bytes)}), ${report.skipped.length} already present, in ${dir}\n`,
        );
      }
    });
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}
