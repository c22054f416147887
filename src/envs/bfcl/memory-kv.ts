import { Backend, m, type MethodSpec } from "./backend.js";
import { bm25PlusScores } from "./bm25.js";
import { deepcopy, dict, jsonDumpsIndent, PyError, str, typeError } from "./py-ops.js";
import {
  delItem,
  dictKeys,
  newDict,
  PyFloat,
  PyTuple,
  setItem,
  type PyDict,
  type PyValue,
} from "./py-value.js";

/**
 * Port of upstream's `MemoryAPI_kv` (`memory_kv.py`): a core memory (7 entries of ≤ 300
 * characters, always shown to the model) and an archival memory (50 of ≤ 2000), snake_case keys,
 * BM25Plus key search. Upstream keeps the memory between conversations in snapshot files; here
 * the snapshot is a value the caller carries from one conversation to the next (`snapshot()`).
 */
const MAX_CORE = 7;
const MAX_CORE_LEN = 300;
const MAX_ARCHIVAL = 50;
const MAX_ARCHIVAL_LEN = 2000;

const err = (msg: string): PyDict => dict([["error", msg]]);
const ok = (msg: string): PyDict => dict([["status", msg]]);
const KEY_RE = /^[a-z]+(_[a-z0-9]+)*$/;

function similaritySearch(query: PyValue, corpus: string[], k: PyValue): PyDict {
  const tokenize = (t: string) =>
    t
      .replace(/_/g, " ")
      .toLowerCase()
      .split(/\s+/)
      .filter((x) => x !== "");
  let scores: number[];
  try {
    scores = bm25PlusScores(corpus.map(tokenize), tokenize(str(query)));
  } catch (e) {
    throw new PyError("ZeroDivisionError", (e as Error).message);
  }
  const ranked = scores.map((s, i) => [s, corpus[i]!] as const).sort((a, b) => b[0] - a[0]);
  if (typeof k !== "number")
    throw typeError("slice indices must be integers or None or have an __index__ method");
  const top = k >= 0 ? ranked.slice(0, k) : ranked.slice(0, Math.max(0, ranked.length + k));
  return dict([["ranked_results", top.map(([s, key]) => new PyTuple([new PyFloat(s), key]))]]);
}

export class MemoryKV extends Backend {
  readonly className = "MemoryAPI_kv";
  core_memory: PyDict = newDict();
  archival_memory: PyDict = newDict();
  private cached?: Record<string, MethodSpec>;

  /** `config.snapshot`: the memory a previous conversation left (absent for the first one). */
  loadScenario(config: PyDict): void {
    const snap = config.snapshot as PyDict | undefined;
    if (snap) {
      this.core_memory = deepcopy(snap.core_memory as PyDict);
      this.archival_memory = deepcopy(snap.archival_memory as PyDict);
    }
  }

  snapshot(): PyDict {
    return dict([
      ["core_memory", deepcopy(this.core_memory)],
      ["archival_memory", deepcopy(this.archival_memory)],
    ]);
  }

  /** What the system prompt shows of the core memory (upstream `_dump_core_memory_to_context`). */
  coreMemoryForContext(): string {
    if (dictKeys(this.core_memory).length === 0)
      return "There is no content in the core memory at this point.";
    return jsonDumpsIndent(this.core_memory, 4);
  }

  publicState(): Record<string, PyValue> {
    return { core_memory: this.core_memory, archival_memory: this.archival_memory, snapshot_folder: null };
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const add = (which: "core" | "archival") => (a: Record<string, PyValue>) => {
      const mem = which === "core" ? this.core_memory : this.archival_memory;
      const key = str(a.key!);
      const value = str(a.value!);
      const [max, maxLen] = which === "core" ? [MAX_CORE, MAX_CORE_LEN] : [MAX_ARCHIVAL, MAX_ARCHIVAL_LEN];
      if (dictKeys(mem).length >= max) {
        return err(
          which === "core"
            ? "Core memory is full. Please clear some entries."
            : "Long term memory is full. Please clear some entries.",
        );
      }
      if ([...value].length > maxLen) {
        return err(`Entry is too long. Please shorten the entry to less than ${maxLen} characters.`);
      }
      if (!KEY_RE.test(key)) return err("Key must be in snake_case format and cannot contain spaces.");
      if (Object.prototype.hasOwnProperty.call(mem, key)) return err("Key name must be unique.");
      setItem(mem, key, value);
      return ok(which === "core" ? "Key-value pair added." : "Key added.");
    };
    const remove = (mem: () => PyDict) => (a: Record<string, PyValue>) => {
      const key = a.key!;
      if (typeof key === "string" && Object.prototype.hasOwnProperty.call(mem(), key)) {
        delItem(mem(), key);
        return ok("Key removed.");
      }
      return err("Key not found.");
    };
    const replace = (mem: () => PyDict, maxLen: number) => (a: Record<string, PyValue>) => {
      const key = str(a.key!);
      const value = str(a.value!);
      if (!Object.prototype.hasOwnProperty.call(mem(), key)) return err("Key not found.");
      if ([...value].length > maxLen)
        return err(`Entry is too long. Please shorten the entry to less than ${maxLen} characters.`);
      setItem(mem(), key, value);
      return ok("Key replaced.");
    };
    const retrieve = (mem: () => PyDict) => (a: Record<string, PyValue>) => {
      const key = a.key!;
      if (typeof key !== "string" || !Object.prototype.hasOwnProperty.call(mem(), key))
        return err("Key not found.");
      return dict([["value", mem()[key]!]]);
    };
    const core = () => this.core_memory;
    const archival = () => this.archival_memory;
    return {
      core_memory_add: m([["key"], ["value"]], add("core")),
      core_memory_remove: m([["key"]], remove(core)),
      core_memory_replace: m([["key"], ["value"]], replace(core, MAX_CORE_LEN)),
      core_memory_clear: m([], () => {
        this.core_memory = newDict();
        return ok("Short term memory cleared.");
      }),
      core_memory_retrieve: m([["key"]], retrieve(core)),
      core_memory_list_keys: m([], () => dict([["keys", dictKeys(this.core_memory)]])),
      core_memory_key_search: m([["query"], ["k", 5]], ({ query, k }) =>
        similaritySearch(query!, dictKeys(this.core_memory), k!),
      ),
      core_memory_retrieve_all: m([], () => this.core_memory),
      archival_memory_add: m([["key"], ["value"]], add("archival")),
      archival_memory_remove: m([["key"]], remove(archival)),
      archival_memory_replace: m([["key"], ["value"]], replace(archival, MAX_ARCHIVAL_LEN)),
      archival_memory_clear: m([], () => {
        this.archival_memory = newDict();
        return ok("Long term memory cleared.");
      }),
      archival_memory_retrieve: m([["key"]], retrieve(archival)),
      archival_memory_list_keys: m([], () => dict([["keys", dictKeys(this.archival_memory)]])),
      archival_memory_key_search: m([["query"], ["k", 5]], ({ query, k }) =>
        similaritySearch(query!, dictKeys(this.archival_memory), k!),
      ),
    };
  }
}
