/**
 * `envace eval` options that only some benches read. Every bench takes the same flat options and
 * reads what it understands, so without this list `--log-samples` on `toolworld:bank` (say) would be
 * accepted and do nothing; it is refused instead. Options also set from the environment
 * (`--api-key`, `--search-api-key`) are left out: an exported key must not refuse a run.
 */
const ONLY_FOR: readonly { key: string; flag: string; benches: readonly string[] }[] = [
  { key: "logSamples", flag: "--log-samples", benches: ["tasks"] },
  { key: "env", flag: "--env", benches: ["tasks"] },
  { key: "dumpDb", flag: "--dump-db", benches: ["tau2", "vita"] },
  { key: "maxErrors", flag: "--max-errors", benches: ["tau2"] },
  { key: "userEndpoint", flag: "--user-endpoint", benches: ["tau2", "vita"] },
  { key: "userModel", flag: "--user-model", benches: ["tau2", "vita"] },
  { key: "judgeEndpoint", flag: "--judge-endpoint", benches: ["tau2", "vita", "tasks"] },
  { key: "judgeModel", flag: "--judge-model", benches: ["tau2", "vita", "tasks"] },
  { key: "lang", flag: "--lang", benches: ["vita"] },
  { key: "tools", flag: "--tools", benches: ["finmcp"] },
  { key: "bfclMode", flag: "--bfcl-mode", benches: ["bfcl"] },
  { key: "embeddingEndpoint", flag: "--embedding-endpoint", benches: ["bfcl"] },
  { key: "embeddingModel", flag: "--embedding-model", benches: ["bfcl"] },
  { key: "searchEndpoint", flag: "--search-endpoint", benches: ["bfcl"] },
];

/** The paper's suite hands its options to the benches it runs, so it reads what they read. */
const SUITE_PARTS = ["tau2", "vita", "bfcl", "finmcp"];

/**
 * Why `options` cannot go to `bench` (the part of `--bench` before the colon), or undefined: the
 * options given that this bench would ignore, each with the benches that read it.
 */
export function flagsBenchIgnores(
  bench: string,
  options: Readonly<Record<string, unknown>>,
): string | undefined {
  const reads = (b: readonly string[]) =>
    b.includes(bench) || (bench === "suite" && b.some((p) => SUITE_PARTS.includes(p)));
  const ignored = ONLY_FOR.filter((f) => options[f.key] !== undefined && !reads(f.benches));
  if (ignored.length === 0) return undefined;
  return `${bench} does not read ${ignored.map((f) => `${f.flag} (${f.benches.join(", ")} only)`).join(", ")}`;
}
