import { join } from "node:path";
import { mapConcurrent } from "../../core/map-concurrent.js";
import { EnvaceError } from "../../core/errors.js";
import { loadLongContext, type LongContextData } from "../../envs/bfcl/long-context.js";
import { newDict } from "../../envs/bfcl/py-value.js";
import {
  COLLECTIONS,
  isAgentic,
  isBfclCategory,
  isMultiTurn,
  isRelevanceOrIrrelevance,
  languageOf,
  type BfclCategory,
} from "./categories.js";
import { evaluateAst, evaluateRelevance, type Candidate } from "./evaluate-single-turn.js";
import { goldCalls } from "./gold.js";
import { loadCategory, type BfclAnswer, type BfclEntry, type LoadedCategory } from "./load.js";
import { BfclModel, inferMultiTurn, inferSingleTurn, type BfclModelOptions } from "./model-handler.js";
import { isEmptyExecuteResponse, multiTurnChecker } from "./multi-turn-checker.js";
import type { ReplayLine } from "./replay-file.js";
import { inferMultiTurnRehearsed } from "./rehearsal.js";
import { answerMemoryQuestion, MemoryPrereqs } from "./memory-flow.js";
import { agenticChecker } from "./agentic-checker.js";
import { answerWebSearchQuestion } from "./web-search-flow.js";
import type { BackendServices } from "../../envs/bfcl/services.js";
import {
  decodeFormatted,
  formatStats,
  formatSystemPrompt,
  loadFormatSensitivity,
} from "./format-sensitivity.js";
import { withLanguageHints } from "./prompts.js";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { toPlain } from "../../envs/bfcl/py-value.js";
import type { ChatModel } from "../../core/model.js";
import {
  addRehearsalStats,
  emptyRehearsalStats,
  type RehearsalOptions,
  type RehearsalStats,
} from "../../testtime/types.js";
import { summarize, type BfclSummary, type CategoryScore } from "./score.js";

/** Who answers: the official answers, a file of candidates, or a model endpoint. */
export type BfclPolicy =
  | { kind: "gold" }
  | { kind: "replay"; lines: ReplayLine[] }
  | { kind: "model"; model: BfclModelOptions; rehearsal?: { options: RehearsalOptions; policy: ChatModel } };

export interface BfclRunOptions {
  /** The `bfcl/` data folder. */
  bfclDir: string;
  categories: BfclCategory[];
  policy: BfclPolicy;
  /** Only the first N entries of each category (gold and model policies). */
  limit?: number;
  concurrency?: number;
  onStart?: (total: number) => void;
  onProgress?: (done: number, total: number) => void;
  /** What the vector-memory and web-search backends call out to; without them a model run skips those categories. */
  services?: BackendServices;
}

export interface BfclResult {
  id: string;
  category: BfclCategory;
  valid: boolean;
  error_type?: string;
}

export interface BfclRun {
  results: BfclResult[];
  categories: Partial<Record<BfclCategory, CategoryScore>>;
  summary: BfclSummary;
  /** Categories asked for that could not run, with the reason. */
  not_run: Record<string, string>;
  /** Test-time rehearsal counters over the multi-turn entries, when rehearsal ran. */
  rehearsal?: RehearsalStats;
  /** Format sensitivity: upstream's spread statistics (in %) and the counts per prompt variation. */
  format_sensitivity?: {
    accuracy_max_delta: number;
    accuracy_variance: number;
    accuracy_std: number;
    by_config: Record<string, { correct: number; total: number }>;
  };
}

/** `bfcl:<name>`: one category or one of upstream's collections (`all`, `live`, `multi_turn`, …). */
export function resolveCategories(variant: string): BfclCategory[] {
  const name = variant === "" ? "all" : variant;
  if (isBfclCategory(name)) return [name];
  const group = COLLECTIONS[name];
  if (!group) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      `unknown BFCL category "${name}"; use one of ${Object.keys(COLLECTIONS).join(", ")} or a category such as simple_python, live_multiple, multi_turn_base`,
    );
  }
  return [...group];
}

interface Job {
  entry: BfclEntry;
  answer: BfclAnswer | undefined;
  /** A replayed candidate; absent for gold and model policies. */
  replay?: ReplayLine;
  /** Multi-turn calls already obtained (rehearsed runs). */
  decoded?: string[][][];
  /** Format sensitivity: the prompt variation and the id the checker dispatches on. */
  format?: { config: string; originalId: string };
}

/** Why a category cannot be scored here, or undefined when it can. */
function unsupported(
  category: BfclCategory,
  lc: LongContextData | undefined,
  policy: BfclPolicy,
  services: BackendServices,
): string | undefined {
  if (isAgentic(category)) {
    // Gold and replayed answers are checked as text: no backend runs, so no service is needed.
    if (policy.kind !== "model") return undefined;
    if (category === "memory_vector" && !services.embedder) {
      return "needs an embedding service: --embedding-endpoint URL [--embedding-model NAME] (upstream embeds with all-MiniLM-L6-v2)";
    }
    if (category.startsWith("web_search") && !services.webSearch) {
      return "needs a search API: --search-endpoint URL (SerpAPI's DuckDuckGo engine, or any service answering in its shape)";
    }
    return undefined;
  }
  if (category === "multi_turn_long_context" && !lc) {
    return "needs bfcl/long_context.py (run `envace data fetch bfcl`)";
  }
  return undefined;
}

function goldCandidate(entry: BfclEntry, answer: BfclAnswer | undefined): Candidate {
  if (entry.category.includes("irrelevance")) return [];
  if (isRelevanceOrIrrelevance(entry.category)) {
    // Relevance only asks for some call; the first function, with no arguments, is one.
    const d = newDict();
    d[String(entry.function[0]?.name ?? "f")] = newDict();
    return [d];
  }
  return goldCalls(answer!, entry.function, languageOf(entry.category));
}

function goldTurns(answer: BfclAnswer): string[][][] {
  return (answer as string[][]).map((t) => (t.length > 0 ? [t] : []));
}

export async function runBfcl(o: BfclRunOptions): Promise<BfclRun> {
  const lc = loadLongContext(o.bfclDir);
  const notRun: Record<string, string> = {};
  const jobs: Job[] = [];
  const loaded = new Map<BfclCategory, LoadedCategory>();
  const replayById = new Map<string, ReplayLine[]>();
  if (o.policy.kind === "replay") {
    for (const l of o.policy.lines) replayById.set(l.id, [...(replayById.get(l.id) ?? []), l]);
  }
  for (const category of o.categories) {
    const why = unsupported(category, lc, o.policy, o.services ?? {});
    if (why) {
      notRun[category] = why;
      continue;
    }
    if (category === "format_sensitivity") {
      if (o.policy.kind === "model" && o.policy.model.mode !== "prompting") {
        notRun[category] =
          "format sensitivity varies the prompting-mode system prompt: use --bfcl-mode prompting";
        continue;
      }
      let cases = loadFormatSensitivity(o.bfclDir).map((c) => ({
        entry: { ...c.entry, category },
        answer: c.answer,
        format: { config: c.config, originalId: c.originalId },
      }));
      if (o.policy.kind === "replay") {
        for (const c of cases)
          for (const line of replayById.get(c.entry.id) ?? []) jobs.push({ ...c, replay: line });
        continue;
      }
      if (o.limit !== undefined) cases = cases.slice(0, o.limit);
      jobs.push(...cases);
      continue;
    }
    const data = loadCategory(o.bfclDir, category);
    loaded.set(category, data);
    let entries = data.entries.map((entry, i) => ({ entry, answer: data.answers?.[i] }));
    if (o.policy.kind === "replay") {
      for (const { entry, answer } of entries) {
        for (const line of replayById.get(entry.id) ?? []) jobs.push({ entry, answer, replay: line });
      }
      continue;
    }
    if (o.limit !== undefined) entries = entries.slice(0, o.limit);
    jobs.push(...entries);
  }
  if (o.policy.kind === "replay") {
    const known = new Set(jobs.map((j) => j.replay!.line));
    const stray = o.policy.lines.filter((l) => !known.has(l.line));
    if (stray.length > 0 && jobs.length === 0) {
      throw new EnvaceError(
        "INVALID_CONFIG",
        `no replayed id belongs to ${o.categories.join(", ")} (first: ${stray[0]!.id})`,
      );
    }
    // Replay order is file order.
    jobs.sort((a, b) => a.replay!.line - b.replay!.line);
  }

  const model = o.policy.kind === "model" ? new BfclModel(o.policy.model) : undefined;
  const services = o.services ?? {};
  const prereqs = model ? new MemoryPrereqs(model, o.bfclDir, services) : undefined;
  const rehearsal = o.policy.kind === "model" ? o.policy.rehearsal : undefined;
  let stats = rehearsal ? emptyRehearsalStats(rehearsal.options) : undefined;
  o.onStart?.(jobs.length);
  const results = await mapConcurrent(
    jobs,
    model ? (o.concurrency ?? 1) : 1,
    async (job) => {
      if (rehearsal && isMultiTurn(job.entry.category)) {
        const r = await inferMultiTurnRehearsed(rehearsal.policy, job.entry, rehearsal.options, lc);
        stats = addRehearsalStats(stats!, r.stats);
        return scoreJob({ ...job, decoded: r.decoded }, o.policy, model, lc);
      }
      if (isAgentic(job.entry.category)) return scoreAgentic(job, o.policy, model, prereqs, services);
      return scoreJob(job, o.policy, model, lc);
    },
    (_r, _i, done) => o.onProgress?.(done, jobs.length),
  );

  const categories: Partial<Record<BfclCategory, CategoryScore>> = {};
  for (const category of o.categories) {
    if (notRun[category]) continue;
    const mine = results.filter((r) => r.category === category);
    if (mine.length === 0) {
      notRun[category] = o.policy.kind === "replay" ? "no replayed candidate for it" : "no entries";
      continue;
    }
    categories[category] = {
      accuracy: mine.filter((r) => r.valid).length / mine.length,
      total: mine.length,
      ran: true,
    };
  }
  const formatResults = results.filter((r) => r.category === "format_sensitivity");
  let formatSensitivity: BfclRun["format_sensitivity"];
  if (formatResults.length > 0) {
    const byConfig: Record<string, { correct: number; total: number }> = {};
    for (const r of formatResults) {
      const config = r.id.split(":")[1]!;
      const s = (byConfig[config] ??= { correct: 0, total: 0 });
      s.total++;
      if (r.valid) s.correct++;
    }
    formatSensitivity = { ...formatStats(byConfig), by_config: byConfig };
  }
  return {
    results,
    categories,
    summary: summarize(categories),
    not_run: notRun,
    ...(stats ? { rehearsal: stats } : {}),
    ...(formatSensitivity ? { format_sensitivity: formatSensitivity } : {}),
  };
}

async function scoreAgentic(
  job: Job,
  policy: BfclPolicy,
  model: BfclModel | undefined,
  prereqs: MemoryPrereqs | undefined,
  services: BackendServices,
): Promise<BfclResult> {
  const base = { id: job.entry.id, category: job.entry.category };
  const answers = job.answer as string[];
  let text: string;
  if (policy.kind === "gold") text = answers[0] ?? "";
  else if (job.replay) text = "answer" in job.replay ? job.replay.answer : "";
  else if (job.entry.category.startsWith("web_search"))
    text = await answerWebSearchQuestion(model!, job.entry, services);
  else text = await answerMemoryQuestion(model!, job.entry, prereqs!);
  if (text === "") return { ...base, valid: false, error_type: "agentic:no_last_message" };
  const v = agenticChecker(text, answers);
  return v.valid ? { ...base, valid: true } : { ...base, valid: false, error_type: v.error_type! };
}

async function scoreJob(
  job: Job,
  policy: BfclPolicy,
  model: BfclModel | undefined,
  lc: LongContextData | undefined,
): Promise<BfclResult> {
  const { entry, answer } = job;
  const base = { id: entry.id, category: entry.category };
  if (isMultiTurn(entry.category)) {
    let decoded: string[][][];
    if (job.decoded) decoded = job.decoded;
    else if (policy.kind === "gold") decoded = goldTurns(answer!);
    else if (job.replay) decoded = "turns" in job.replay ? job.replay.turns : [];
    else decoded = await inferMultiTurn(model!, entry, lc);
    // Upstream drops steps that decode to nothing before checking.
    decoded = decoded.map((turn) => turn.filter((step) => !isEmptyExecuteResponse([step])));
    const v = multiTurnChecker(decoded, answer as string[][], entry, lc);
    return v.valid ? { ...base, valid: true } : { ...base, valid: false, error_type: v.error_type! };
  }
  if (job.format) {
    let c: Candidate;
    if (policy.kind === "gold") c = goldCalls(answer!, entry.function, "python");
    else if (job.replay)
      c = "calls" in job.replay ? job.replay.calls : { decodeError: "replay line has no calls" };
    else
      c = decodeFormatted(
        await model!.promptText(formattedMessages(entry, job.format.config)),
        job.format.config,
      );
    const v = evaluateAst(entry, answer!, c, { checkerCategory: job.format.originalId });
    return v.valid ? { ...base, valid: true } : { ...base, valid: false, error_type: v.error_type! };
  }
  let candidate: Candidate;
  if (policy.kind === "gold") candidate = goldCandidate(entry, answer);
  else if (job.replay)
    candidate =
      "calls" in job.replay
        ? job.replay.calls
        : { decodeError: "replay line has turns, entry is single-turn" };
  else candidate = await inferSingleTurn(model!, entry);
  const v = isRelevanceOrIrrelevance(entry.category)
    ? evaluateRelevance(entry.category, candidate)
    : evaluateAst(entry, answer!, candidate, {
        underscoreToDot: policy.kind === "model" && policy.model.mode === "fc",
      });
  return v.valid ? { ...base, valid: true } : { ...base, valid: false, error_type: v.error_type! };
}

export function bfclDirOf(dataRoot: string): string {
  return join(dataRoot, "bfcl");
}

/** The question with the variation's system prompt first (upstream `system_prompt_pre_processing_chat_model`). */
function formattedMessages(entry: BfclEntry, config: string): ChatCompletionMessageParam[] {
  const messages = toPlain(entry.question[0] ?? []) as ChatCompletionMessageParam[];
  const system = formatSystemPrompt(config, withLanguageHints(entry.function, "simple_python"));
  if (messages[0]?.role === "system") {
    return [{ role: "system", content: `${system}\n\n${String(messages[0].content)}` }, ...messages.slice(1)];
  }
  return [{ role: "system", content: system }, ...messages];
}
