import { REHEARSAL_FLAG_KEYS } from "../testtime/eval-flags.js";

/**
 * Benchmarks that `envace eval --bench NAME[:VARIANT]` can run. Each registers a runner under the
 * part of `--bench` before the colon (`tau2`, `toolworld`, `bfcl`, …); the runner reads the variant
 * and the flat options it understands, lists the bench-only ones among them (`reads`), and rejects
 * values it cannot use with INVALID_CONFIG.
 */
export interface EvalOptions {
  /** The part of `--bench` after the colon (`retail` in `tau2:retail`); "" when absent. */
  variant: string;
  split?: string;
  /** Benchmark data root (`--data`); resolved by `resolveDataDir` when absent. */
  data?: string;
  /** Oracle policy (`gold`, `noop`, `replay:FILE`); the agent is a model when absent. */
  policy?: string;
  endpoint?: string;
  model?: string;
  userEndpoint?: string;
  userModel?: string;
  judgeEndpoint?: string;
  judgeModel?: string;
  apiKey?: string;
  trials: number;
  limit?: number;
  maxSteps?: number;
  maxErrors?: number;
  concurrency: number;
  dumpDb?: string;
  /** Task language of benchmarks that have two (`vita`: en | zh). */
  lang?: string;
  /** Called after each episode. */
  onProgress?: (done: number, total: number) => void;
  /** Called once the number of episodes is known. */
  onStart?: (total: number) => void;
}

/** What every bench returns; `--json` prints it as is. */
export interface BenchSummary {
  bench: string;
  tasks: number;
  trials: number;
  pass_hat_k: Record<number, number>;
  reward_mean: number;
  results: unknown[];
  [extra: string]: unknown;
}

/**
 * Options that some benches read and others do not (the rest of `EvalOptions` every bench reads).
 * A runner lists those it reads in `reads`: `envace eval` refuses the others, naming the benches that
 * read them, instead of running as if they had not been given; and `optionsFor` hands a runner
 * only what it lists, so a runner that reads an option it does not list never sees it.
 */
export const BENCH_ONLY_OPTIONS = [
  "logSamples",
  "env",
  "dumpDb",
  "maxErrors",
  "userEndpoint",
  "userModel",
  "judgeEndpoint",
  "judgeModel",
  "lang",
  "tools",
  "bfclMode",
  "embeddingEndpoint",
  "embeddingModel",
  "searchEndpoint",
  "searchApiKey",
  "checkpoint",
  ...REHEARSAL_FLAG_KEYS,
] as const;
export type BenchOnlyOption = (typeof BENCH_ONLY_OPTIONS)[number];

export interface BenchRunner {
  /** One line for `--help` and error messages, e.g. "τ²-bench: tau2:mock|tau2:retail|tau2:airline". */
  describe: string;
  /** The bench-only options this runner reads (a getter where it depends on other runners). */
  readonly reads: readonly BenchOnlyOption[];
  run(options: EvalOptions): Promise<BenchSummary>;
}

const BENCH_ONLY: ReadonlySet<string> = new Set(BENCH_ONLY_OPTIONS);

/** `options` without the bench-only options that `runner` does not read: what its `run` is handed. */
export function optionsFor<T extends object>(runner: BenchRunner, options: T): T {
  const reads: ReadonlySet<string> = new Set(runner.reads);
  return Object.fromEntries(
    Object.entries(options).filter(([key]) => !BENCH_ONLY.has(key) || reads.has(key)),
  ) as T;
}

/** The bench-only options among `given` (option keys) that `runner` does not read. */
export function unreadOptions(runner: BenchRunner, given: readonly string[]): BenchOnlyOption[] {
  return BENCH_ONLY_OPTIONS.filter((o) => given.includes(o) && !runner.reads.includes(o));
}

const runners = new Map<string, BenchRunner>();

export function registerBench(name: string, runner: BenchRunner): void {
  runners.set(name, runner);
}

export function getBench(name: string): BenchRunner | undefined {
  return runners.get(name);
}

export function listBenches(): Array<[string, BenchRunner]> {
  return [...runners.entries()];
}

/** The registered benches that read `option`, in registration order. */
export function benchesReading(option: BenchOnlyOption): string[] {
  return listBenches()
    .filter(([, r]) => r.reads.includes(option))
    .map(([name]) => name);
}
