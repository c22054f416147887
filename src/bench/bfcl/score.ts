import type { BfclCategory } from "./categories.js";

/**
 * Upstream's leaderboard arithmetic (`eval_runner_helper.py`): groups are unweighted means of their
 * parts except Live, which weights its AST categories by entry count; a category not run counts 0
 * (and its group is marked not complete); overall = Non-Live 10, Live 10, Irrelevance 10,
 * Multi-Turn 30, Agentic 40, normalised.
 */
export interface CategoryScore {
  accuracy: number;
  total: number;
  /** False when the category was not run (it still counts 0). */
  ran: boolean;
}

export interface GroupScore {
  accuracy: number;
  total: number;
  /** Every category under it was run. */
  complete: boolean;
}

export interface BfclSummary {
  groups: Record<string, GroupScore>;
  overall: number;
  not_run: string[];
}

export const OVERALL_WEIGHTS = { non_live: 10, live: 10, irrelevance: 10, multi_turn: 30, agentic: 40 };

type Scores = Partial<Record<BfclCategory, CategoryScore>>;

function get(scores: Scores, c: BfclCategory): GroupScore {
  const s = scores[c];
  return s
    ? { accuracy: s.accuracy, total: s.total, complete: s.ran }
    : { accuracy: 0, total: 0, complete: false };
}

function unweighted(parts: GroupScore[]): GroupScore {
  return {
    accuracy: parts.reduce((a, p) => a + p.accuracy, 0) / parts.length,
    total: parts.reduce((a, p) => a + p.total, 0),
    complete: parts.every((p) => p.complete),
  };
}

function weighted(parts: GroupScore[]): GroupScore {
  const total = parts.reduce((a, p) => a + p.total, 0);
  return {
    // Upstream divides by the total count; with nothing run that is 0/0, which we report as 0.
    accuracy: total === 0 ? 0 : parts.reduce((a, p) => a + p.accuracy * p.total, 0) / total,
    total,
    complete: parts.every((p) => p.complete),
  };
}

export function summarize(scores: Scores): BfclSummary {
  const g = (c: BfclCategory) => get(scores, c);
  const simpleNonLive = unweighted([g("simple_python"), g("simple_java"), g("simple_javascript")]);
  const nonLive = unweighted([simpleNonLive, g("multiple"), g("parallel"), g("parallel_multiple")]);
  const live = weighted([
    g("live_simple"),
    g("live_multiple"),
    g("live_parallel"),
    g("live_parallel_multiple"),
  ]);
  const irrelevance = unweighted([g("irrelevance"), g("live_irrelevance")]);
  const multiTurn = unweighted([
    g("multi_turn_base"),
    g("multi_turn_miss_func"),
    g("multi_turn_miss_param"),
    g("multi_turn_long_context"),
  ]);
  const webSearch = unweighted([g("web_search_base"), g("web_search_no_snippet")]);
  const memory = unweighted([g("memory_kv"), g("memory_vector"), g("memory_rec_sum")]);
  const agentic = unweighted([webSearch, memory]);
  const w = OVERALL_WEIGHTS;
  const wsum = w.non_live + w.live + w.irrelevance + w.multi_turn + w.agentic;
  const overall =
    (nonLive.accuracy * w.non_live +
      live.accuracy * w.live +
      irrelevance.accuracy * w.irrelevance +
      multiTurn.accuracy * w.multi_turn +
      agentic.accuracy * w.agentic) /
    wsum;
  const all: BfclCategory[] = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
    "web_search_base",
    "web_search_no_snippet",
    "memory_kv",
    "memory_vector",
    "memory_rec_sum",
  ];
  return {
    groups: {
      non_live: nonLive,
      simple_non_live: simpleNonLive,
      live,
      irrelevance,
      relevance: g("live_relevance"),
      multi_turn: multiTurn,
      web_search: webSearch,
      memory,
      agentic,
    },
    overall,
    not_run: all.filter((c) => !scores[c]?.ran),
  };
}
