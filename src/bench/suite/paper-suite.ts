/**
 * The EnvACE paper's benchmark table in one run: BFCL-v4 (overall), τ²-bench (airline, retail,
 * telecom; their average), VitaBench (delivery, in-store, OTA, cross-domain; their average),
 * Overall = the mean of those three, and FinMCP-Bench's tool F1 reported beside it (it is not part
 * of Overall in the paper). Each part runs through the bench registry with the suite's flags;
 * a part that cannot run here (bench not registered, no data — e.g. VitaBench's OTA and cross-domain
 * task files before `envace data fetch vitabench` —, no judge) is
 * listed with its reason, and an aggregate missing a part says so instead of averaging fewer.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError, isEnvaceError } from "../../core/errors.js";
import { resolveDataDir } from "../data-dir.js";
import {
  optionsFor,
  type BenchOnlyOption,
  type BenchRunner,
  type BenchSummary,
  type EvalOptions,
} from "../registry.js";

export type SuiteGroup = "bfcl" | "tau2" | "vita" | "finmcp";

export interface SuitePart {
  group: SuiteGroup;
  /** `--bench` value of this part. */
  bench: string;
}

export const PAPER_SUITE: readonly SuitePart[] = [
  { group: "bfcl", bench: "bfcl" },
  { group: "tau2", bench: "tau2:airline" },
  { group: "tau2", bench: "tau2:retail" },
  { group: "tau2", bench: "tau2:telecom" },
  { group: "vita", bench: "vita:delivery" },
  { group: "vita", bench: "vita:instore" },
  { group: "vita", bench: "vita:ota" },
  { group: "vita", bench: "vita:cross_domain" },
  { group: "finmcp", bench: "finmcp" },
];

export interface PartResult {
  bench: string;
  group: SuiteGroup;
  /** The part's headline score in [0, 1], or null when it did not run or was not scored. */
  score: number | null;
  /** Why the score is null. */
  not_run?: string;
  /** What the part itself reports as not run (e.g. BFCL categories). */
  part_not_run?: string[];
}

export interface PaperTable {
  bfcl_overall: number | null;
  tau2_average: number | null;
  vita_average: number | null;
  /** Mean of the three above; null unless all three have a score. */
  overall: number | null;
  finmcp_tf1: number | null;
  parts: PartResult[];
  /** One line per part that did not run or aggregate that is incomplete. */
  not_run: string[];
}

/** The headline number of a part's summary: BFCL overall, pass^1 for τ² and VitaBench, FinMCP TF1. */
export function partScore(group: SuiteGroup, s: BenchSummary): number | null {
  if (group === "bfcl") return typeof s.overall === "number" ? s.overall : s.reward_mean;
  if (group === "finmcp") {
    const m = (s as { metrics?: { overall?: { macro_f1?: number; n?: number } } }).metrics?.overall;
    return m && (m.n ?? 0) > 0 ? (m.macro_f1 ?? null) : null;
  }
  const p1 = s.pass_hat_k[1];
  return typeof p1 === "number" ? p1 : null;
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** Aggregates part results into the paper's table. */
export function paperTable(parts: PartResult[]): PaperTable {
  const notRun: string[] = parts
    .filter((p) => p.score === null)
    .map((p) => `${p.bench}: ${p.not_run ?? "not scored"}`);
  const groupMean = (g: SuiteGroup): number | null => {
    const ps = parts.filter((p) => p.group === g);
    if (ps.length === 0 || ps.some((p) => p.score === null)) {
      if (ps.some((p) => p.score !== null)) notRun.push(`${g}: average left out, not every part was scored`);
      return null;
    }
    return mean(ps.map((p) => p.score as number));
  };
  const bfcl = groupMean("bfcl");
  const tau2 = groupMean("tau2");
  const vita = groupMean("vita");
  const finmcp = parts.find((p) => p.group === "finmcp")?.score ?? null;
  const overall = bfcl !== null && tau2 !== null && vita !== null ? mean([bfcl, tau2, vita]) : null;
  if (overall === null) notRun.push("overall: needs BFCL-v4, τ² and VitaBench all scored");
  return {
    bfcl_overall: bfcl,
    tau2_average: tau2,
    vita_average: vita,
    overall,
    finmcp_tf1: finmcp,
    parts,
    not_run: notRun,
  };
}

const pct = (x: number | null) => (x === null ? "—" : (100 * x).toFixed(1));

/** The table as markdown, in the paper's column order, with what did not run underneath. */
export function paperTableMarkdown(t: PaperTable): string {
  const lines = [
    "| BFCL-v4 | τ²-bench | VitaBench | Overall | FinMCP TF1 |",
    "|---|---|---|---|---|",
    `| ${pct(t.bfcl_overall)} | ${pct(t.tau2_average)} | ${pct(t.vita_average)} | ${pct(t.overall)} | ${pct(t.finmcp_tf1)} |`,
    "",
    "| part | score |",
    "|---|---|",
    ...t.parts.map(
      (p) => `| ${p.bench} | ${p.score === null ? `not run: ${p.not_run ?? "not scored"}` : pct(p.score)} |`,
    ),
  ];
  if (t.not_run.length > 0) lines.push("", "Not run:", ...t.not_run.map((l) => `- ${l}`));
  return lines.join("\n") + "\n";
}

/** Runs every part through `getBench`; failures of one part never stop the others. */
export async function runPaperSuite(
  base: EvalOptions,
  getBench: (name: string) => BenchRunner | undefined,
  parts: readonly SuitePart[] = PAPER_SUITE,
): Promise<PaperTable> {
  const results: PartResult[] = [];
  const rehearsal = (base as { rehearsal?: string }).rehearsal;
  for (const part of parts) {
    const [name, ...rest] = part.bench.split(":");
    const runner = getBench(name ?? "");
    const skip = (why: string) =>
      results.push({ bench: part.bench, group: part.group, score: null, not_run: why });
    if (!runner) {
      skip("bench not available in this build");
      continue;
    }
    if (rehearsal !== undefined && rehearsal !== "none" && part.group !== "tau2" && part.group !== "vita") {
      skip(`--rehearsal ${rehearsal} is not implemented for this bench`);
      continue;
    }
    const opts: EvalOptions = { ...base, variant: rest.join(":") };
    if (part.group === "finmcp") {
      const dir = join(resolveDataDir(base.data), "finmcp");
      if (!existsSync(dir)) {
        skip(`no data (put FinMCP-Bench's files in ${dir})`);
        continue;
      }
      opts.data = dir;
    }
    try {
      const summary = await runner.run(optionsFor(runner, opts));
      const score = partScore(part.group, summary);
      const partNotRun = Array.isArray(summary.not_run) ? (summary.not_run as string[]) : undefined;
      results.push({
        bench: part.bench,
        group: part.group,
        score,
        ...(score === null ? { not_run: "ran, but nothing was scored (e.g. no judge)" } : {}),
        ...(partNotRun && partNotRun.length > 0 ? { part_not_run: partNotRun } : {}),
      });
    } catch (e) {
      skip(isEnvaceError(e) ? e.message : `failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return paperTable(results);
}

/** `envace eval --bench suite:paper`: the table as a bench summary (`--json` prints it whole). */
export function suiteBenchRunner(getBench: (name: string) => BenchRunner | undefined): BenchRunner {
  return {
    describe: "the paper's table: suite:paper (BFCL-v4, τ², VitaBench, FinMCP-Bench)",
    // what its parts read, asked when needed: parts may register after the suite
    get reads(): BenchOnlyOption[] {
      const names = new Set(PAPER_SUITE.map((p) => p.bench.split(":")[0] ?? ""));
      return [...new Set([...names].flatMap((n) => getBench(n)?.reads ?? []))];
    },
    async run(o: EvalOptions): Promise<BenchSummary & { table: PaperTable; markdown: string }> {
      if (o.variant !== "paper")
        throw new EnvaceError("INVALID_CONFIG", `unknown suite "${o.variant}"; use suite:paper`);
      const table = await runPaperSuite(o, getBench);
      return {
        bench: "suite:paper",
        tasks: table.parts.length,
        trials: o.trials,
        pass_hat_k: {},
        reward_mean: table.overall ?? 0,
        table,
        markdown: paperTableMarkdown(table),
        results: table.parts,
      };
    },
  };
}
