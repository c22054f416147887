export { BENCHMARKS, dataFiles, isBenchmark } from "./manifest.js";
export type { Benchmark, DataFile } from "./manifest.js";
export { DEFAULT_DATA_BASE_URL, fetchBenchmarkData, fileUrl } from "./fetch-data.js";
export type { FetchDataOptions, FetchProgress, FetchReport } from "./fetch-data.js";
