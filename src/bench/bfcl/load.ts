import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { fileStem, isMultiTurn, isRelevanceOrIrrelevance, type BfclCategory } from "./categories.js";
import { parseJsonPy } from "../../envs/bfcl/lossless-json.js";
import { isDict, type PyDict, type PyValue } from "../../envs/bfcl/py-value.js";

/** One BFCL question, numbers parsed losslessly (see `lossless-json.ts`). */
export interface BfclEntry {
  id: string;
  category: BfclCategory;
  /** `question[turn]` = that turn's messages. */
  question: Array<Array<{ role: string; content: string }>>;
  /** Function docs offered from the start (multi-turn: from `involved_classes`, minus held-back ones). */
  function: PyDict[];
  /** Multi-turn only. */
  initial_config?: PyDict;
  involved_classes?: string[];
  /** Multi-turn `miss_func`: turn index → docs held back until that turn. */
  missed_function?: Record<string, PyDict[]>;
  /** The raw line, for fields we do not model. */
  raw: PyDict;
}

/** `ground_truth` of `possible_answer/`; absent for relevance and irrelevance. */
export type BfclAnswer = PyValue;

export interface LoadedCategory {
  category: BfclCategory;
  entries: BfclEntry[];
  /** Aligned with `entries` by index, as upstream aligns them; undefined when there is no answer file. */
  answers?: BfclAnswer[];
}

/** Which multi-turn function-doc file each backend class's schemas live in. */
export const FUNC_DOC_FILES: Record<string, string> = {
  GorillaFileSystem: "gorilla_file_system.json",
  MathAPI: "math_api.json",
  MessageAPI: "message_api.json",
  TwitterAPI: "posting_api.json",
  TicketAPI: "ticket_api.json",
  TradingBot: "trading_bot.json",
  TravelAPI: "travel_booking.json",
  VehicleControlAPI: "vehicle_control.json",
  WebSearchAPI: "web_search.json",
  MemoryAPI_kv: "memory_kv.json",
  MemoryAPI_vector: "memory_vector.json",
  MemoryAPI_rec_sum: "memory_rec_sum.json",
};

export function readJsonLines(path: string): PyDict[] {
  if (!existsSync(path)) throw new EnvaceError("INVALID_DATA_FILE", `BFCL data file not found: ${path}`);
  const out: PyDict[] = [];
  const lines = readFileSync(path, "utf8").split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === "") continue;
    let v: PyValue;
    try {
      v = parseJsonPy(line);
    } catch (e) {
      throw new EnvaceError("INVALID_DATA_FILE", `${path}:${i + 1}: ${(e as Error).message}`);
    }
    if (!isDict(v)) throw new EnvaceError("INVALID_DATA_FILE", `${path}:${i + 1}: not a JSON object`);
    out.push(v);
  }
  return out;
}

const docCache = new Map<string, PyDict[]>();

export function funcDocs(bfclDir: string, className: string): PyDict[] {
  const file = FUNC_DOC_FILES[className];
  if (!file) throw new EnvaceError("INVALID_DATA_FILE", `unknown BFCL backend class ${className}`);
  const path = join(bfclDir, "multi_turn_func_doc", file);
  let docs = docCache.get(path);
  if (!docs) {
    docs = readJsonLines(path);
    docCache.set(path, docs);
  }
  return docs;
}

function toEntry(raw: PyDict, category: BfclCategory, bfclDir: string): BfclEntry {
  const id = raw.id;
  if (typeof id !== "string") throw new EnvaceError("INVALID_DATA_FILE", `BFCL entry without an id`);
  const entry: BfclEntry = {
    id,
    category,
    question: raw.question as BfclEntry["question"],
    function: (raw.function as PyDict[] | undefined) ?? [],
    raw,
  };
  if (category.startsWith("memory")) {
    // Upstream's process_memory_test_case / process_agentic_test_case: the id names the backend,
    // the backend's docs are the functions, and the answer-format instruction opens the question.
    const backend = memoryBackendClass(category);
    entry.id = id.replace("memory", category);
    entry.involved_classes = [backend];
    entry.function = funcDocs(bfclDir, backend);
    entry.question = [
      [{ role: "system", content: AGENTIC_RESPONSE_FORMAT }, ...(entry.question[0] ?? [])],
      ...entry.question.slice(1),
    ];
  }
  if (category.startsWith("web_search")) {
    // Upstream's process_web_search_test_case and populate_initial_settings_for_web_search_test_cases:
    // both categories share the questions; the id names the category, which decides whether
    // search results show their snippets.
    entry.id = id.replace("web_search", category);
    entry.involved_classes = raw.involved_classes as string[];
    entry.function = entry.involved_classes.flatMap((c) => funcDocs(bfclDir, c));
    entry.initial_config = {
      [entry.involved_classes[0]!]: { show_snippet: !category.includes("no_snippet") },
    };
    entry.question = [
      [{ role: "system", content: AGENTIC_RESPONSE_FORMAT }, ...(entry.question[0] ?? [])],
      ...entry.question.slice(1),
    ];
  }
  if (isMultiTurn(category)) {
    entry.initial_config = (raw.initial_config as PyDict | undefined) ?? ({} as PyDict);
    entry.involved_classes = raw.involved_classes as string[];
    // Upstream fills `function` from the classes' docs, then moves each missed function's doc
    // out of it into `missed_function[turn]`.
    const docs = entry.involved_classes.flatMap((c) => funcDocs(bfclDir, c));
    const missed = raw.missed_function as Record<string, string[]> | undefined;
    if (missed) {
      entry.missed_function = {};
      for (const [turn, names] of Object.entries(missed)) {
        entry.missed_function[turn] = [];
        for (const name of names) {
          const i = docs.findIndex((d) => d.name === name);
          if (i >= 0) entry.missed_function[turn].push(...docs.splice(i, 1));
        }
      }
    }
    entry.function = docs;
  }
  return entry;
}

/** Upstream's ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT. */
export const AGENTIC_RESPONSE_FORMAT =
  "For your final answer to the user, you must respond in this format: {'answer': A short and precise answer to the question, 'context': A brief explanation of how you arrived at this answer or why it is correct}. If you do not know the answer, respond with {'answer': 'I do not know', 'context': 'I do not know'}. If you think the question cannot be properly answered, response with {'answer': 'I cannot answer this question', 'context': A short reason explaining why this question cannot be answered}.\n";

export const memoryBackendClass = (category: string): string =>
  `MemoryAPI_${category.slice("memory_".length)}`;

/** The scenario's prerequisite conversations (where the model fills its memory), in order. */
export function loadMemoryPrereqs(bfclDir: string, category: BfclCategory, scenario: string): BfclEntry[] {
  const backend = memoryBackendClass(category);
  return readJsonLines(join(bfclDir, "memory_prereq_conversation", `memory_${scenario}.json`)).map((raw) => ({
    id: String(raw.id).replace("memory", category),
    category,
    question: raw.question as BfclEntry["question"],
    function: funcDocs(bfclDir, backend),
    involved_classes: [backend],
    raw,
  }));
}

/** Loads one category's questions and (where the category has them) its possible answers. */
export function loadCategory(bfclDir: string, category: BfclCategory): LoadedCategory {
  const stem = fileStem(category);
  const entries = readJsonLines(join(bfclDir, `BFCL_v4_${stem}.json`)).map((r) =>
    toEntry(r, category, bfclDir),
  );
  if (isRelevanceOrIrrelevance(category)) return { category, entries };
  const answerRows = readJsonLines(join(bfclDir, "possible_answer", `BFCL_v4_${stem}.json`));
  if (answerRows.length !== entries.length) {
    throw new EnvaceError(
      "INVALID_DATA_FILE",
      `BFCL ${category}: ${entries.length} questions but ${answerRows.length} answers`,
    );
  }
  answerRows.forEach((a, i) => {
    if (a.id !== entries[i]!.raw.id) {
      throw new EnvaceError(
        "INVALID_DATA_FILE",
        `BFCL ${category}: answer ${i} is ${String(a.id)}, question is ${entries[i]!.id}`,
      );
    }
  });
  return { category, entries, answers: answerRows.map((a) => a.ground_truth ?? null) };
}
