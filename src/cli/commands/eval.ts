import { Command, InvalidArgumentError, Option } from "commander";
import cliProgress from "cli-progress";
import { isEnvaceError } from "../../core/errors.js";
import {
  getBench,
  listBenches,
  optionsFor,
  registerBench,
  type BenchSummary,
  type EvalOptions,
} from "../../bench/registry.js";
import { tau2BenchRunner } from "../../bench/tau2/bench-runner.js";
import { loadTau2Domain, type Tau2DomainName } from "../../envs/tau2/index.js";
import { toolworldBenchRunner } from "../../bench/toolworld/index.js";
import { tasksBenchRunner } from "../../bench/tasks/index.js";
import { withTau2Rehearsal } from "../../bench/tau2/rehearsal-bench.js";
import { vitaBenchRunner } from "../../bench/vita/bench-runner.js";
import { finmcpBenchRunner } from "../../bench/finmcp/bench-runner.js";
import { suiteBenchRunner } from "../../bench/suite/paper-suite.js";
import { bfclBenchRunner, formatBfclSummary } from "../../bench/bfcl/bench-runner.js";
import { flagsBenchIgnores, typedOptions, type TypedOption } from "../bench-only-flags.js";

// Built-in benches: one line each (toolworld, bfcl, … register here too).
const loadTau2 = (name: string, dataRoot: string) => loadTau2Domain(name as Tau2DomainName, dataRoot);
// --rehearsal / --checkpoint wrap the τ² runner (src/bench/tau2/rehearsal-bench.ts, over src/testtime/);
// without them it runs as is.
registerBench("tau2", withTau2Rehearsal(tau2BenchRunner(loadTau2), loadTau2));
registerBench("toolworld", toolworldBenchRunner());
registerBench("tasks", tasksBenchRunner());
registerBench("vita", vitaBenchRunner());
registerBench("finmcp", finmcpBenchRunner());
registerBench("suite", suiteBenchRunner(getBench));
registerBench("bfcl", bfclBenchRunner());

/** Exit code for bad command-line input (unknown bench, missing endpoint, unknown split). */
export const USAGE_EXIT_CODE = 2;

function positiveInt(name: string) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`${name} must be a positive integer`);
    return n;
  };
}

/** What commander hands the action: the bench options as flags, plus `--bench` and `--json`. */
type EvalCliOptions = Omit<EvalOptions, "variant" | "onProgress" | "onStart"> & {
  bench?: string;
  suite?: string;
  json?: boolean;
};

export function register(program: Command): void {
  program
    .command("eval")
    .description("Evaluate an agent (a model endpoint or an oracle policy) on a benchmark")
    .option(
      "--bench <name>",
      "benchmark, e.g. tau2:mock, tau2:retail, tau2:airline, tau2:telecom, vita:delivery, vita:instore, vita:ota, vita:cross_domain, toolworld:library, tasks:FILE.jsonl, bfcl:all, bfcl:multi_turn_base",
    )
    .option("--suite <name>", "run a benchmark suite instead of one bench: paper (the paper's table)")
    .option("--split <name>", "official task split (e.g. test); all tasks when absent")
    .option("--data <dir>", "benchmark data root (default: ../shared/data when present, else ./data)")
    .option("--policy <name>", "oracle policy instead of a model: gold | noop | replay:FILE")
    .option("--endpoint <url>", "agent's OpenAI-compatible base URL (…/v1)")
    .option("--model <name>", "agent model name")
    .option("--user-endpoint <url>", "user simulator's OpenAI-compatible base URL")
    .option("--user-model <name>", "user simulator model name")
    .option("--judge-endpoint <url>", "NL-assertion judge's base URL (without it NL assertions are skipped)")
    .option("--judge-model <name>", "judge model name")
    .addOption(new Option("--api-key <key>", "API key for the endpoints").env("OPENAI_API_KEY"))
    .option("--trials <k>", "trials per task (pass^1..k)", positiveInt("--trials"), 1)
    .option("--limit <n>", "only the first N tasks", positiveInt("--limit"))
    .option("--max-steps <n>", "max conversation steps per episode (default 100)", positiveInt("--max-steps"))
    .option("--max-errors <n>", "max tool errors per episode (default 10)", positiveInt("--max-errors"))
    .option("--concurrency <n>", "episodes run at once", positiveInt("--concurrency"), 1)
    .option(
      "--env <mode>",
      "task files (tasks:FILE): real (each task's env, default) | none (scored in the policy's rehearsed world)",
    )
    .option(
      "--log-samples <file>",
      "task files: write each episode's transcript, tool calls and per-standard verdicts (JSONL)",
    )
    .option("--dump-db <dir>", "write <task_id>.db.json and <task_id>.results.json per task")
    .option("--lang <lang>", "task language where a benchmark has two (vita: en, default, | zh)")
    .option("--tools <file>", "finmcp: the MCP tool schemas (OpenAI JSON list) shown to the model")
    // test-time rehearsal (src/testtime/): read by every bench that supports it
    .option("--rehearsal <mode>", "test-time rehearsal: none | parallel:N | sequential:N", "none")
    .option(
      "--memory <kind>",
      "rehearsal memory: summary (the policy's own) | digest (every attempt, deterministic; default) | consensus (the plan most attempts agree on, without the calls the imagined tools refused in most attempts that made them)",
    )
    .option(
      "--rehearsal-scope <scope>",
      "rehearse once per user turn (turn, default) or before every real action (action)",
    )
    .option(
      "--rehearsal-max-tokens <n>",
      "tokens one rehearsal attempt may generate (default 2048)",
      positiveInt("--rehearsal-max-tokens"),
    )
    .option("--rehearsal-budget <n>", "total rehearsal tokens per episode", positiveInt("--rehearsal-budget"))
    .option(
      "--rehearsal-prompt <variant>",
      "rehearsal prompt as in training: full | compact | compact-related",
    )
    .option(
      "--rehearsal-user-replies <n>",
      "τ²: imagined user replies an attempt goes on through, the user's own tool results imagined too (default 2 on tau2:telecom, else 0)",
    )
    .option(
      "--guard-tools <names>",
      "commit guard: comma-separated side-effecting tools the committed run will not call with arguments the rehearsal saw refused in most attempts that made them (the actor sees the imagined refusal and answers again; held_calls in --json); writes: the bench's own state-changing tools (tau2, vita, toolworld)",
    )
    .option(
      "--note-use <kind>",
      "what the rehearsal note does in the committed run: act (the actor acts reading it; default) | decide (it decides what each step does, not how: each step is written again from the real conversation without the note and committed where it does the same, i.e. the same tools in the same order or a reply, and the guard holds none of its calls; with --guard-tools naming the writes, also where the noted step would reply and the rewritten one only reads, or the noted step makes a write no attempt made and the rewritten one makes none; one more model call per step; rewritten_steps in --json)",
    )
    .option("--checkpoint <dir>", "a saved model directory, served by a worker started for this run")
    .option(
      "--bfcl-mode <mode>",
      "bfcl with a model: fc (native tool calls, default) | prompting (Python call text)",
    )
    .option(
      "--embedding-endpoint <url>",
      "bfcl:memory_vector with a model: OpenAI-compatible embeddings base URL (…/v1) for the vector memory",
    )
    .option("--embedding-model <name>", "embedding model name (default all-MiniLM-L6-v2, upstream's encoder)")
    .option(
      "--search-endpoint <url>",
      "bfcl:web_search with a model: search API answering in SerpAPI's shape (e.g. https://serpapi.com/search.json); pages in results are fetched directly",
    )
    .addOption(
      new Option("--search-api-key <key>", "API key sent to the search endpoint").env("SERPAPI_API_KEY"),
    )
    .option("--json", "print one JSON object on stdout")
    .action(async (o: EvalCliOptions, cmd: Command) => {
      process.exitCode = await runEval(o, typedOptions(cmd));
    });
}

async function runEval(o: EvalCliOptions, typed: readonly TypedOption[]): Promise<number> {
  if ((o.bench === undefined) === (o.suite === undefined)) {
    process.stderr.write("envace eval: give one of --bench NAME or --suite paper\n");
    return USAGE_EXIT_CODE;
  }
  const benchName = o.bench ?? `suite:${o.suite}`;
  const [name, ...rest] = benchName.split(":");
  const runner = getBench(name ?? "");
  if (!runner) {
    const known = listBenches()
      .map(([, r]) => r.describe)
      .join("; ");
    process.stderr.write(`envace eval: unknown bench "${benchName}". Known: ${known}\n`);
    return USAGE_EXIT_CODE;
  }
  const ignored = flagsBenchIgnores(name ?? "", runner, typed);
  if (ignored) {
    process.stderr.write(`envace eval: ${ignored}\n`);
    return USAGE_EXIT_CODE;
  }
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${benchName} [{bar}] {value}/{total} episodes | {duration_formatted}`,
      hideCursor: false,
    },
    cliProgress.Presets.shades_classic,
  );
  const opts: EvalOptions = {
    ...optionsFor(runner, o),
    variant: rest.join(":"),
    onStart: (total) => bar.start(total, 0),
    onProgress: (done) => bar.update(done),
  };
  let summary: BenchSummary;
  try {
    summary = await runner.run(opts);
  } catch (e) {
    if (isEnvaceError(e, "INVALID_CONFIG")) {
      bar.stop();
      process.stderr.write(`envace eval: ${e.message}\n`);
      return USAGE_EXIT_CODE;
    }
    bar.stop();
    throw e;
  }
  bar.stop();
  if (o.json) process.stdout.write(JSON.stringify(summary) + "\n");
  else
    process.stdout.write(
      summary.bench.startsWith("bfcl") ? formatBfclSummary(summary) : humanSummary(summary),
    );
  return 0;
}

function humanSummary(s: BenchSummary): string {
  // Suites print their own table (src/bench/suite/).
  if (typeof s.markdown === "string") return s.markdown;
  const lines = [
    `${s.bench}: ${s.tasks} tasks × ${s.trials} trials`,
    `reward mean: ${s.reward_mean.toFixed(4)}`,
  ];
  // Task files say where tool calls were answered (a real environment, or the policy's rehearsal).
  if (typeof s.environment === "string") lines.push(`environment: ${s.environment}`);
  for (const [k, v] of Object.entries(s.pass_hat_k)) lines.push(`pass^${k}: ${v.toFixed(4)}`);
  const rh = s.rehearsal as
    | {
        mode: string;
        n: number;
        memory: string;
        real_calls_during_rehearsal: number;
        held_calls?: number;
        tokens: { total: number };
      }
    | undefined;
  if (rh && rh.mode !== "none") {
    lines.push(
      `rehearsal: ${rh.mode}:${rh.n} (${rh.memory}), ${rh.tokens.total} tokens, real calls while rehearsing: ${rh.real_calls_during_rehearsal}${
        rh.held_calls ? `, calls held back by the guard: ${rh.held_calls}` : ""
      }`,
    );
  }
  const results = s.results as Array<{
    task_id?: string;
    trial?: number;
    reward?: number;
    termination?: string;
    error?: string;
    components?: Record<string, { status: string; inBasis?: boolean }>;
  }>;
  // A null reward (e.g. VitaBench rubrics without a judge) was not scored, not failed.
  const failed = results.filter((r) => typeof r.reward === "number" && r.reward < 1 - 1e-6);
  if (failed.length > 0) {
    lines.push(`not passed (${failed.length}):`);
    for (const r of failed.slice(0, 20)) {
      const why = Object.entries(r.components ?? {})
        .filter(([, c]) => c.inBasis !== false && (c.status === "failed" || c.status === "error"))
        .map(([name, c]) => `${name} ${c.status}`);
      const detail = [r.termination, ...why, ...(r.error ? [r.error] : [])].join("; ");
      lines.push(`  ${r.task_id} #${r.trial}: reward ${r.reward} (${detail})`);
    }
    if (failed.length > 20) lines.push(`  … and ${failed.length - 20} more (use --json for all)`);
  }
  return lines.join("\n") + "\n";
}
