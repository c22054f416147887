import { EnvaceError } from "../../core/errors.js";
import { Backend, m, type MethodSpec } from "./backend.js";
import { FlatIpIndex } from "./flat-ip-index.js";
import { dict, intKey, jsonDumpsIndent, PyError, str, typeError } from "./py-ops.js";
import { newDict, PyFloat, pyType, setItem, type PyDict, type PyValue } from "./py-value.js";
import type { Embedder } from "./services.js";

/**
 * Port of upstream's `MemoryAPI_vector` (`memory_vector.py`): a core store (7 entries of ≤ 300
 * characters) and an archival store (50 of ≤ 2000), each a FAISS inner-product index over
 * L2-normalised embeddings with sequential ids. Upstream embeds with a local
 * SentenceTransformer; here with the caller's `Embedder`. The memory between conversations is a
 * snapshot the caller carries (`{next_id, store}` per store, as upstream's snapshot files hold).
 */
const MAX_CORE = 7;
const MAX_CORE_LEN = 300;
const MAX_ARCHIVAL = 50;
const MAX_ARCHIVAL_LEN = 2000;

/** `len(text)` for the argument upstream measures (a TypeError for what has no length). */
function pyLen(v: PyValue): number {
  if (typeof v === "string") return [...v].length;
  if (Array.isArray(v)) return v.length;
  if (pyType(v) === "dict") return Object.keys(v as PyDict).length;
  throw typeError(`object of type '${pyType(v)}' has no len()`);
}

/** Upstream's `VectorStore`: the texts by id (insertion order) and their index. */
export class VectorStore {
  private store = new Map<number, string>();
  private nextId = 0;
  private readonly index = new FlatIpIndex();
  /** Set by a snapshot load: the texts still to embed before the index can answer. */
  private pendingReembed = false;

  constructor(
    private readonly maxSize: number,
    private readonly maxEntryLength: number,
    private readonly embedder: Embedder,
  ) {}

  private async embed(texts: string[]): Promise<Float32Array[]> {
    const vectors = await this.embedder.embed(texts);
    if (vectors.length !== texts.length) {
      throw new EnvaceError(
        "ENDPOINT_ERROR",
        `the embedding service returned ${vectors.length} vectors for ${texts.length} texts`,
      );
    }
    // SentenceTransformer's normalize_embeddings=True, then float32 as upstream hands FAISS.
    return vectors.map((v) => {
      const norm = Math.max(Math.hypot(...v), 1e-12);
      return Float32Array.from(v, (x) => x / norm);
    });
  }

  /** Rebuilds the index of a loaded snapshot on first use: every text in one batch, ids sorted. */
  private async ready(): Promise<void> {
    if (!this.pendingReembed) return;
    this.pendingReembed = false;
    this.index.reset();
    const ids = [...this.store.keys()].sort((a, b) => a - b);
    if (ids.length === 0) return;
    const vectors = await this.embed(ids.map((i) => this.store.get(i)!));
    ids.forEach((id, i) => this.index.add(id, vectors[i]!));
  }

  /** The stored id a model-given `vec_id` finds (`vec_id in self._store`: 1, 1.0 and True alike). */
  private find(vecId: PyValue): number | undefined {
    const k = intKey(vecId);
    return k !== undefined && this.store.has(Number(k)) ? Number(k) : undefined;
  }

  async add(text: PyValue): Promise<PyDict> {
    await this.ready();
    if (pyLen(text) > this.maxEntryLength) {
      return dict([["error", `Entry length exceeds maximum length of ${this.maxEntryLength} characters.`]]);
    }
    if (this.store.size >= this.maxSize) {
      return dict([["error", `Memory size exceeds maximum size of ${this.maxSize} entries.`]]);
    }
    const id = this.nextId++;
    const [vector] = await this.embed([str(text)]);
    this.index.add(id, vector!);
    this.store.set(id, str(text));
    return dict([["id", id]]);
  }

  async remove(vecId: PyValue): Promise<PyDict> {
    await this.ready();
    const id = this.find(vecId);
    if (id === undefined) return dict([["error", `ID ${str(vecId)} not present in store.`]]);
    this.index.remove(id);
    this.store.delete(id);
    return dict([["status", `ID ${str(vecId)} removed from store.`]]);
  }

  async update(vecId: PyValue, newText: PyValue): Promise<PyDict> {
    await this.ready();
    const id = this.find(vecId);
    if (id === undefined) return dict([["error", `ID ${str(vecId)} not present in store.`]]);
    if (pyLen(newText) > this.maxEntryLength) {
      return dict([["error", `Entry length exceeds maximum length of ${this.maxEntryLength} characters.`]]);
    }
    this.index.remove(id);
    const [vector] = await this.embed([str(newText)]);
    this.index.add(id, vector!);
    this.store.set(id, str(newText));
    return dict([["status", `ID ${str(vecId)} updated.`]]);
  }

  clear(): PyDict {
    this.index.reset();
    this.pendingReembed = false;
    this.store.clear();
    this.nextId = 0;
    return dict([["status", "Memory cleared."]]);
  }

  async retrieve(query: PyValue, topK: PyValue): Promise<PyValue[]> {
    await this.ready();
    if (this.store.size === 0) return [];
    if (typeof topK !== "number" && typeof topK !== "boolean") {
      throw typeError(`'<' not supported between instances of 'int' and '${pyType(topK)}'`);
    }
    const k = Math.min(Number(topK), this.store.size);
    // FAISS's Python wrapper asserts k > 0, with no message.
    if (k <= 0) throw new PyError("AssertionError", "");
    const [q] = await this.embed([str(query)]);
    return this.index.search(q!, k).map(({ id, score }) =>
      dict([
        ["id", id],
        ["similarity_score", new PyFloat(score)],
        ["text", this.store.get(id)!],
      ]),
    );
  }

  retrieveAll(): PyValue[] {
    return [...this.store].map(([id, text]) =>
      dict([
        ["id", id],
        ["text", text],
      ]),
    );
  }

  /** Upstream's `export()`: JSON keys are strings, as its snapshot file has them. */
  export(): PyDict {
    const store = newDict();
    for (const [id, text] of this.store) setItem(store, String(id), text);
    return dict([
      ["next_id", this.nextId],
      ["store", store],
    ]);
  }

  loadFromSnapshot(snap: PyDict): void {
    this.nextId = Number(snap.next_id);
    this.store = new Map(Object.entries(snap.store as PyDict).map(([k, v]) => [Number(k), v as string]));
    this.index.reset();
    this.pendingReembed = this.store.size > 0;
  }

  /** `json.dumps(self._store, indent=4)` (int keys print as strings). */
  dumpStore(): string {
    return jsonDumpsIndent(this.export().store as PyDict, 4);
  }
}

export class MemoryVector extends Backend {
  readonly className = "MemoryAPI_vector";
  readonly core_memory: VectorStore;
  readonly archival_memory: VectorStore;
  private cached?: Record<string, MethodSpec>;

  constructor(embedder: Embedder) {
    super();
    this.core_memory = new VectorStore(MAX_CORE, MAX_CORE_LEN, embedder);
    this.archival_memory = new VectorStore(MAX_ARCHIVAL, MAX_ARCHIVAL_LEN, embedder);
  }

  loadScenario(config: PyDict): void {
    const snap = config.snapshot as PyDict | undefined;
    if (snap) {
      this.core_memory.loadFromSnapshot(snap.core_memory as PyDict);
      this.archival_memory.loadFromSnapshot(snap.archival_memory as PyDict);
    }
  }

  snapshot(): PyDict {
    return dict([
      ["core_memory", this.core_memory.export()],
      ["archival_memory", this.archival_memory.export()],
    ]);
  }

  /**
   * Upstream tests `if not self.core_memory`, but a VectorStore is always truthy, so the prompt
   * shows the store's JSON even when it is empty (`{}`); kept as upstream behaves.
   */
  coreMemoryForContext(): string {
    return this.core_memory.dumpStore();
  }

  publicState(): Record<string, PyValue> {
    return {
      core_memory: this.core_memory.export(),
      archival_memory: this.archival_memory.export(),
      snapshot_folder: null,
    };
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= this.build());
  }

  private build(): Record<string, MethodSpec> {
    const spec = (s: VectorStore): Record<string, MethodSpec> => ({
      memory_add: m([["text"]], ({ text }) => s.add(text!)),
      memory_remove: m([["vec_id"]], ({ vec_id }) => s.remove(vec_id!)),
      memory_update: m([["vec_id"], ["new_text"]], ({ vec_id, new_text }) => s.update(vec_id!, new_text!)),
      memory_clear: m([], () => s.clear()),
      memory_retrieve: m([["query"], ["top_k", 5]], async ({ query, top_k }) =>
        dict([["result", await s.retrieve(query!, top_k!)]]),
      ),
      memory_retrieve_all: m([], () => dict([["result", s.retrieveAll()]])),
    });
    const out: Record<string, MethodSpec> = {};
    for (const [which, store] of [
      ["core", this.core_memory],
      ["archival", this.archival_memory],
    ] as const) {
      for (const [name, method] of Object.entries(spec(store))) out[`${which}_${name}`] = method;
    }
    return out;
  }
}
