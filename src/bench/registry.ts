/**
 * Benchmarks that `envace eval --bench NAME[:VARIANT]` can run. Each registers a runner under the
 * part of `--bench` before the colon (`tau2`, later `toolworld`, `bfcl`, …); the runner reads the
 * variant and the flat options it understands, and rejects what it cannot use with INVALID_CONFIG.
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

export interface BenchRunner {
  /** One line for `--help` and error messages, e.g. "τ²-bench: tau2:mock|tau2:retail|tau2:airline". */
  describe: string;
  run(options: EvalOptions): Promise<BenchSummary>;
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
