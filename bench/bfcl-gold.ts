/**
 * `npm run bench:bfcl`: scores every AST category (non-live and live, relevance and irrelevance
 * included) with the gold policy and prints entries per second. The budget: all AST
 * categories under 10 s on 2 cores. The output is one JSON object (`--json` is accepted and
 * changes nothing); the data root is `--data DIR` or the first other argument.
 *
 *   npm run bench:bfcl -- [--json] [--data DIR]
 */
import { join } from "node:path";
import { resolveDataDir } from "../src/bench/data-dir.js";
import { resolveCategories, runBfcl } from "../src/bench/bfcl/run-bfcl.js";

const args = process.argv.slice(2);
const dataFlag = args.indexOf("--data");
const dataDir = dataFlag >= 0 ? args[dataFlag + 1] : args.find((a) => !a.startsWith("--"));
const bfclDir = join(resolveDataDir(dataDir), "bfcl");
const categories = resolveCategories("ast");
const start = performance.now();
const run = await runBfcl({ bfclDir, categories, policy: { kind: "gold" } });
const seconds = (performance.now() - start) / 1000;
const valid = run.results.filter((r) => r.valid).length;
process.stdout.write(
  JSON.stringify({
    categories: categories.length,
    entries: run.results.length,
    valid,
    seconds: Number(seconds.toFixed(3)),
    entries_per_s: Math.round(run.results.length / seconds),
  }) + "\n",
);
