/**
 * BFCL v4 test categories and the leaderboard's groups (upstream `constants/category_mapping.py`
 * and the overall-score weights of `eval_runner_helper.py`).
 */
export const NON_LIVE = [
  "simple_python",
  "simple_java",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "irrelevance",
] as const;
export const LIVE = [
  "live_simple",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
  "live_irrelevance",
  "live_relevance",
] as const;
export const MULTI_TURN = [
  "multi_turn_base",
  "multi_turn_miss_func",
  "multi_turn_miss_param",
  "multi_turn_long_context",
] as const;
export const WEB_SEARCH = ["web_search_base", "web_search_no_snippet"] as const;
export const MEMORY = ["memory_kv", "memory_vector", "memory_rec_sum"] as const;
export const AGENTIC = [...MEMORY, ...WEB_SEARCH] as const;

export const ALL_SCORING = [...NON_LIVE, ...LIVE, ...MULTI_TURN, ...AGENTIC] as const;
/** Scored per prompt variation, not part of the overall score. */
export const NON_SCORING = ["format_sensitivity"] as const;
export const ALL_CATEGORIES = [...ALL_SCORING, ...NON_SCORING] as const;
export type BfclCategory = (typeof ALL_CATEGORIES)[number];

export function isBfclCategory(name: string): name is BfclCategory {
  return (ALL_CATEGORIES as readonly string[]).includes(name);
}

/** Groups `--bench bfcl:<group>` accepts, as upstream's `TEST_COLLECTION_MAPPING`. */
export const COLLECTIONS: Record<string, readonly BfclCategory[]> = {
  all: ALL_CATEGORIES,
  all_scoring: ALL_SCORING,
  non_live: NON_LIVE,
  live: LIVE,
  multi_turn: MULTI_TURN,
  single_turn: [...NON_LIVE, ...LIVE],
  ast: [...NON_LIVE, ...LIVE],
  non_python: ["simple_java", "simple_javascript"],
  memory: MEMORY,
  web_search: WEB_SEARCH,
  agentic: AGENTIC,
};

export type Language = "python" | "java" | "javascript";

export function languageOf(category: string): Language {
  if (category.includes("java") && !category.includes("javascript")) return "java";
  if (category.includes("javascript")) return "javascript";
  return "python";
}

export const isMultiTurn = (c: string): boolean => c.startsWith("multi_turn");
export const isRelevanceOrIrrelevance = (c: string): boolean => c.includes("relevance");
export const isAgentic = (c: string): boolean => c.startsWith("memory") || c.startsWith("web_search");

/** The data file a category's questions and answers live in (`memory_kv` → `memory`). */
export function fileStem(category: BfclCategory): string {
  if (category.startsWith("memory")) return "memory";
  if (category.startsWith("web_search")) return "web_search";
  return category;
}

/**
 * Category of an entry id: `live_simple_3-3-0` → `live_simple`, `multi_turn_base_7` →
 * `multi_turn_base` (upstream `extract_test_category_from_id`).
 */
export function categoryOfId(id: string): string {
  const head = id.split(":")[0]!;
  return head.includes("_") ? head.slice(0, head.lastIndexOf("_")) : head;
}
