/**
 * Which upstream files make up each benchmark's data folder, laid out as in `../shared/data`
 * (see its README). Files are fetched raw from GitHub: `<base>/<repo>/<ref>/<path>`.
 * Refs are branch names, so a fetch gets upstream's current data.
 */
export const BENCHMARKS = ["tau2", "bfcl", "vitabench"] as const;
export type Benchmark = (typeof BENCHMARKS)[number];

export interface DataFile {
  /** GitHub owner/name. */
  repo: string;
  ref: string;
  /** Path inside the repository. */
  path: string;
  /** Path under the data directory, with `/` separators. */
  dest: string;
}

export function isBenchmark(name: string): name is Benchmark {
  return (BENCHMARKS as readonly string[]).includes(name);
}

export function dataFiles(bench: Benchmark): DataFile[] {
  switch (bench) {
    case "tau2":
      return tau2Files();
    case "bfcl":
      return bfclFiles();
    case "vitabench":
      return vitabenchFiles();
  }
}

const TAU2 = { repo: "sierra-research/tau2-bench", ref: "main" };
const TAU_V1 = { repo: "sierra-research/tau-bench", ref: "main" };
const GORILLA = { repo: "ShishirPatil/gorilla", ref: "main" };
const VITA = { repo: "meituan-longcat/vitabench", ref: "main" };

const TAU2_DOMAINS: Record<string, string[]> = {
  mock: ["db.json", "policy.md", "policy_solo.md", "split_tasks.json", "tasks.json", "user_db.json"],
  retail: ["db.json", "policy.md", "split_tasks.json", "tasks.json"],
  // No db.json: upstream's is too large to be worth fetching; the loader assembles it from the
  // tau-bench v1 files below (../shared/data/README.md).
  airline: ["policy.md", "split_tasks.json", "tasks.json"],
  telecom: [
    "db.toml",
    "main_policy.md",
    "main_policy_solo.md",
    "split_tasks.json",
    "tasks.json",
    "tasks_small.json",
    "tech_support_manual.md",
    "tech_support_workflow.md",
    "user_db.toml",
  ],
};

function tau2Files(): DataFile[] {
  const files: DataFile[] = [{ ...TAU2, path: "LICENSE", dest: "tau2/LICENSE" }];
  for (const [domain, names] of Object.entries(TAU2_DOMAINS)) {
    for (const name of names) {
      files.push({ ...TAU2, path: `data/tau2/domains/${domain}/${name}`, dest: `tau2/${domain}/${name}` });
    }
  }
  for (const name of ["simulation_guidelines.md", "simulation_guidelines_tools.md"]) {
    files.push({ ...TAU2, path: `data/tau2/user_simulator/${name}`, dest: `tau2/user_simulator/${name}` });
  }
  files.push({ ...TAU_V1, path: "LICENSE", dest: "tau2/airline/tau-bench-v1/LICENSE" });
  for (const name of ["flights.json", "reservations.json", "users.json"]) {
    files.push({
      ...TAU_V1,
      path: `tau_bench/envs/airline/data/${name}`,
      dest: `tau2/airline/tau-bench-v1/${name}`,
    });
  }
  return files;
}

const BFCL_DATA = "berkeley-function-call-leaderboard/bfcl_eval/data";
const BFCL_QUESTIONS = [
  "format_sensitivity",
  "irrelevance",
  "live_irrelevance",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
  "live_relevance",
  "live_simple",
  "memory",
  "multi_turn_base",
  "multi_turn_long_context",
  "multi_turn_miss_func",
  "multi_turn_miss_param",
  "multiple",
  "parallel",
  "parallel_multiple",
  "simple_java",
  "simple_javascript",
  "simple_python",
  "web_search",
];
/** Categories without a possible answer file (relevance, irrelevance, format sensitivity). */
const BFCL_NO_ANSWERS = new Set(["format_sensitivity", "irrelevance", "live_irrelevance", "live_relevance"]);
const BFCL_FUNC_DOCS = [
  "gorilla_file_system",
  "math_api",
  "memory_kv",
  "memory_rec_sum",
  "memory_vector",
  "message_api",
  "posting_api",
  "ticket_api",
  "trading_bot",
  "travel_booking",
  "vehicle_control",
  "web_search",
];
const BFCL_MEMORY_PREREQS = ["customer", "finance", "healthcare", "notetaker", "student"];

function bfclFiles(): DataFile[] {
  const at = (sub: string): DataFile => ({ ...GORILLA, path: `${BFCL_DATA}/${sub}`, dest: `bfcl/${sub}` });
  return [
    { ...GORILLA, path: "LICENSE", dest: "bfcl/LICENSE" },
    at("README.md"),
    ...BFCL_QUESTIONS.map((c) => at(`BFCL_v4_${c}.json`)),
    ...BFCL_QUESTIONS.filter((c) => !BFCL_NO_ANSWERS.has(c)).map((c) =>
      at(`possible_answer/BFCL_v4_${c}.json`),
    ),
    ...BFCL_FUNC_DOCS.map((d) => at(`multi_turn_func_doc/${d}.json`)),
    ...BFCL_MEMORY_PREREQS.map((m) => at(`memory_prereq_conversation/memory_${m}.json`)),
    // The long-context padding is Python constants upstream; src/envs/bfcl/long-context.ts reads
    // its literals (nothing is executed).
    {
      ...GORILLA,
      path: "berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/long_context.py",
      dest: "bfcl/long_context.py",
    },
  ];
}

/** All four domains, English (`tasks_en.json`) and Chinese (`tasks.json`). */
function vitabenchFiles(): DataFile[] {
  return [
    { ...VITA, path: "LICENSE", dest: "vitabench/LICENSE" },
    ...["delivery", "instore", "ota", "cross_domain"].flatMap((d) =>
      ["tasks_en.json", "tasks.json"].map((name) => ({
        ...VITA,
        path: `data/vita/domains/${d}/${name}`,
        dest: `vitabench/${d}/${name}`,
      })),
    ),
  ];
}
