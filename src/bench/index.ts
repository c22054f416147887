export { passHatK, passHatKs, isSuccessful } from "./pass-hat-k.js";
export { registerBench, getBench, listBenches, optionsFor, BENCH_ONLY_OPTIONS } from "./registry.js";
export type { BenchOnlyOption, BenchRunner, BenchSummary, EvalOptions } from "./registry.js";
export * as tau2 from "./tau2/index.js";
