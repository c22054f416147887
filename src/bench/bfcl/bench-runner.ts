import { EnvaceError } from "../../core/errors.js";
import { BACKEND_CLASSES } from "../../envs/bfcl/backends.js";
import { resolveDataDir } from "../data-dir.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import { funcDocs } from "./load.js";
import { readBfclReplay } from "./replay-file.js";
import { bfclDirOf, resolveCategories, runBfcl, type BfclPolicy } from "./run-bfcl.js";
import { OVERALL_WEIGHTS } from "./score.js";
import { isMultiTurn } from "./categories.js";
import { OpenAIChatModel } from "../../engines/openai-chat-model.js";
import {
  checkGuardTools,
  guardsWrites,
  rehearsalFromFlags,
  type RehearsalEvalFlags,
  REHEARSAL_FLAG_KEYS,
} from "../../testtime/eval-flags.js";
import type { BfclMode } from "./model-handler.js";
import type { BackendServices } from "../../envs/bfcl/services.js";
import { openAIEmbedder, serpApiWebSearch } from "./http-services.js";

const usage = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);

/** Options `envace eval` passes beyond the shared ones. */
type BfclEvalOptions = EvalOptions & {
  bfclMode?: string;
  embeddingEndpoint?: string;
  embeddingModel?: string;
  searchEndpoint?: string;
  searchApiKey?: string;
};

/** The services the agentic backends call, from the flags that configure them. */
function servicesFrom(o: BfclEvalOptions): BackendServices {
  if (o.embeddingModel !== undefined && o.embeddingEndpoint === undefined)
    throw usage("--embedding-model needs --embedding-endpoint URL");
  for (const [flag, url] of [
    ["--embedding-endpoint", o.embeddingEndpoint],
    ["--search-endpoint", o.searchEndpoint],
  ] as const) {
    if (url !== undefined && !URL.canParse(url)) throw usage(`${flag} must be a URL, got "${url}"`);
  }
  return {
    ...(o.embeddingEndpoint !== undefined
      ? {
          embedder: openAIEmbedder({
            baseURL: o.embeddingEndpoint,
            model: o.embeddingModel ?? "all-MiniLM-L6-v2",
            ...(o.apiKey ? { apiKey: o.apiKey } : {}),
          }),
        }
      : {}),
    ...(o.searchEndpoint !== undefined
      ? {
          webSearch: serpApiWebSearch({
            endpoint: o.searchEndpoint,
            ...(o.searchApiKey ? { apiKey: o.searchApiKey } : {}),
          }),
        }
      : {}),
  };
}

function policyFrom(o: BfclEvalOptions): BfclPolicy {
  if (o.policy !== undefined && o.endpoint !== undefined)
    throw usage("give either --policy or --endpoint/--model, not both");
  if (o.policy === "gold") return { kind: "gold" };
  if (o.policy?.startsWith("replay:") && o.policy.length > "replay:".length) {
    return { kind: "replay", lines: readBfclReplay(o.policy.slice("replay:".length)) };
  }
  if (o.policy !== undefined) throw usage(`unknown --policy "${o.policy}" for bfcl; use gold or replay:FILE`);
  if (o.endpoint === undefined || o.model === undefined) {
    throw usage("an agent is needed: --policy gold|replay:FILE, or --endpoint URL --model NAME");
  }
  const mode = (o.bfclMode ?? "fc") as BfclMode;
  if (mode !== "fc" && mode !== "prompting")
    throw usage(`--bfcl-mode must be fc or prompting, got "${String(o.bfclMode)}"`);
  return {
    kind: "model",
    model: { baseURL: o.endpoint, model: o.model, mode, ...(o.apiKey ? { apiKey: o.apiKey } : {}) },
  };
}

/** `envace eval --bench bfcl:<category|collection>`: upstream's per-category accuracy, groups and overall. */
export function bfclBenchRunner(): BenchRunner {
  return {
    describe:
      "BFCL v4: bfcl:all|non_live|live|multi_turn|<category> (e.g. bfcl:simple_python, bfcl:multi_turn_base)",
    reads: [
      "bfclMode",
      "embeddingEndpoint",
      "embeddingModel",
      "searchEndpoint",
      "searchApiKey",
      ...REHEARSAL_FLAG_KEYS,
    ],
    async run(options: EvalOptions): Promise<BenchSummary> {
      const o = options as BfclEvalOptions;
      if (o.trials !== 1) throw usage("bfcl scores one attempt per entry; --trials must be 1");
      const categories = resolveCategories(o.variant);
      let policy = policyFrom(o);
      const rehearsalOptions = rehearsalFromFlags(o as RehearsalEvalFlags);
      if (guardsWrites(o as RehearsalEvalFlags))
        throw usage(
          "--guard-tools writes: BFCL's tools do not say which change state; name them (--guard-tools rm,mv)",
        );
      const bfclDir = bfclDirOf(resolveDataDir(o.data));
      // Rehearsal runs on the multi-turn entries, whose tools are the eight backends' functions.
      if (rehearsalOptions.guardTools)
        checkGuardTools(rehearsalOptions, multiTurnToolNames(bfclDir), "bfcl multi-turn");
      if (rehearsalOptions.mode !== "none") {
        if (policy.kind !== "model") throw usage("--rehearsal needs a model: --endpoint URL --model NAME");
        if (!categories.some(isMultiTurn)) {
          throw usage("--rehearsal works on the multi-turn categories (e.g. bfcl:multi_turn)");
        }
        const chat = new OpenAIChatModel({
          baseURL: policy.model.baseURL,
          model: policy.model.model,
          ...(o.apiKey ? { apiKey: o.apiKey } : {}),
        });
        policy = { ...policy, rehearsal: { options: rehearsalOptions, policy: chat } };
      }
      const run = await runBfcl({
        bfclDir,
        categories,
        policy,
        services: servicesFrom(o),
        concurrency: o.concurrency,
        ...(o.limit !== undefined ? { limit: o.limit } : {}),
        ...(o.onStart ? { onStart: o.onStart } : {}),
        ...(o.onProgress ? { onProgress: (d: number, t: number) => o.onProgress!(d, t) } : {}),
      });
      const valid = run.results.filter((r) => r.valid).length;
      const accuracy = run.results.length === 0 ? 0 : valid / run.results.length;
      return {
        bench: `bfcl:${o.variant || "all"}`,
        tasks: run.results.length,
        trials: 1,
        pass_hat_k: { 1: accuracy },
        reward_mean: accuracy,
        accuracy,
        categories: run.categories,
        summary: run.summary.groups,
        overall: run.summary.overall,
        overall_weights: OVERALL_WEIGHTS,
        not_run: run.not_run,
        ...(run.format_sensitivity ? { format_sensitivity: run.format_sensitivity } : {}),
        not_run_in_overall: run.summary.not_run,
        ...(run.rehearsal
          ? {
              rehearsal: {
                mode: run.rehearsal.mode,
                n: run.rehearsal.n,
                memory: run.rehearsal.memory,
                applied_to: "multi-turn categories",
                real_calls_during_rehearsal: run.rehearsal.realCallsDuringRehearsal,
                attempts: run.rehearsal.attempts,
                tokens: run.rehearsal.tokens,
              },
            }
          : {}),
        results: run.results.map((r) => ({
          id: r.id,
          valid: r.valid,
          ...(r.error_type ? { error_type: r.error_type } : {}),
        })),
      };
    },
  };
}

/** The human-readable report `envace eval` prints for a bfcl run. */
export function formatBfclSummary(s: BenchSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  const lines = [`${s.bench}: ${s.tasks} candidates, accuracy ${pct(s.accuracy as number)}`];
  const cats = s.categories as Record<string, { accuracy: number; total: number }>;
  for (const [c, v] of Object.entries(cats))
    lines.push(`  ${c.padEnd(26)} ${pct(v.accuracy).padStart(8)}  (${v.total})`);
  lines.push("summary groups:");
  const groups = s.summary as Record<string, { accuracy: number; complete: boolean }>;
  for (const [g, v] of Object.entries(groups)) {
    lines.push(
      `  ${g.padEnd(26)} ${pct(v.accuracy).padStart(8)}${v.complete ? "" : "  (incomplete: missing categories count 0)"}`,
    );
  }
  lines.push(
    `overall (Non-Live 10, Live 10, Irrelevance 10, Multi-Turn 30, Agentic 40): ${pct(s.overall as number)}`,
  );
  const rh = s.rehearsal as
    { mode: string; n: number; real_calls_during_rehearsal: number; attempts: number } | undefined;
  if (rh) {
    lines.push(
      `rehearsal: ${rh.mode}:${rh.n} on multi-turn turns, ${rh.attempts} attempts, real calls while rehearsing: ${rh.real_calls_during_rehearsal}`,
    );
  }
  const fs = s.format_sensitivity as { accuracy_max_delta: number; accuracy_std: number } | undefined;
  if (fs)
    lines.push(
      `format sensitivity: max delta ${fs.accuracy_max_delta} points, std ${fs.accuracy_std} over 26 prompt variations`,
    );
  const notRun = s.not_run as Record<string, string>;
  for (const [c, why] of Object.entries(notRun)) lines.push(`not run: ${c}: ${why}`);
  const failed = (s.results as Array<{ id: string; valid: boolean; error_type?: string }>).filter(
    (r) => !r.valid,
  );
  for (const r of failed.slice(0, 20)) lines.push(`  ✗ ${r.id}: ${r.error_type}`);
  if (failed.length > 20) lines.push(`  … and ${failed.length - 20} more (use --json for all)`);
  return lines.join("\n") + "\n";
}

/** Every function of the multi-turn backends (upstream's `multi_turn_func_doc`), sorted. */
function multiTurnToolNames(bfclDir: string): string[] {
  const names = BACKEND_CLASSES.flatMap((c) => funcDocs(bfclDir, c).map((d) => String(d.name)));
  return [...new Set(names)].sort();
}
