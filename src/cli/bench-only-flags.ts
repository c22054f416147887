/**
 * `envace eval` options that only some benches read. Every bench takes the same flat options and
 * reads what it understands, so without this list `--log-samples` on `toolworld:bank` (say) would be
 * accepted and do nothing; it is refused instead. Options also set from the environment
 * (`--api-key`, `--search-api-key`) are left out: an exported key must not refuse a run.
 */
const REHEARSING = ["tau2", "vita", "bfcl", "toolworld"]; // the benches that read the test-time rehearsal flags

const ONLY_FOR: readonly { key: string; flag: string; benches: readonly string[]; unset?: unknown }[] = [
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
  { key: "checkpoint", flag: "--checkpoint", benches: ["tau2", "vita", "tasks", "toolworld"] },
  { key: "rehearsal", flag: "--rehearsal", benches: REHEARSING, unset: "none" },
  { key: "memory", flag: "--memory", benches: REHEARSING },
  { key: "rehearsalScope", flag: "--rehearsal-scope", benches: REHEARSING },
  { key: "rehearsalMaxTokens", flag: "--rehearsal-max-tokens", benches: REHEARSING },
  { key: "rehearsalBudget", flag: "--rehearsal-budget", benches: REHEARSING },
  { key: "rehearsalPrompt", flag: "--rehearsal-prompt", benches: REHEARSING },
  { key: "rehearsalUserReplies", flag: "--rehearsal-user-replies", benches: REHEARSING },
  { key: "guardTools", flag: "--guard-tools", benches: REHEARSING },
  { key: "noteUse", flag: "--note-use", benches: REHEARSING },
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
  const given = (f: (typeof ONLY_FOR)[number]) => options[f.key] !== undefined && options[f.key] !== f.unset;
  const ignored = ONLY_FOR.filter((f) => given(f) && !reads(f.benches));
  if (ignored.length === 0) return undefined;
  return `${bench} does not read ${ignored.map((f) => `${f.flag} (${f.benches.join(", ")} only)`).join(", ")}`;
}
