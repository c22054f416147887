export { passHatK, passHatKs, isSuccessful } from "./pass-hat-k.js";
export { registerBench, getBench, listBenches } from "./registry.js";
export type { BenchRunner, BenchSummary, EvalOptions } from "./registry.js";
export * as tau2 from "./tau2/index.js";
