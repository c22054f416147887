import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FlatIpIndex } from "../../../src/envs/bfcl/flat-ip-index.js";
import { BackendSession } from "../../../src/envs/bfcl/executor.js";
import { dict } from "../../../src/envs/bfcl/py-ops.js";
import type { Embedder } from "../../../src/envs/bfcl/services.js";
import { bagOfWordsEmbedding } from "../../../src/testing/embedding-server.js";

type Op =
  | { op: "add" | "update"; id: number; vec: number[] }
  | { op: "remove"; id: number }
  | { op: "reload" }
  | { op: "search"; vec: number[]; k: number; ids: number[]; scores: number[] };

/** FAISS 1.11 runs recorded by a throwaway script (results only): many exact ties. */
const recorded = JSON.parse(
  readFileSync(new URL("./upstream-faiss-search.json", import.meta.url), "utf8"),
) as { cases: Op[][] };

describe("flat inner-product index", () => {
  it("returns FAISS's ids, scores and tie order on every recorded search", () => {
    let searches = 0;
    for (const ops of recorded.cases) {
      const index = new FlatIpIndex();
      const vectors = new Map<number, Float32Array>();
      for (const op of ops) {
        if (op.op === "add") {
          vectors.set(op.id, Float32Array.from(op.vec));
          index.add(op.id, vectors.get(op.id)!);
        } else if (op.op === "update") {
          index.remove(op.id);
          vectors.set(op.id, Float32Array.from(op.vec));
          index.add(op.id, vectors.get(op.id)!);
        } else if (op.op === "remove") {
          index.remove(op.id);
          vectors.delete(op.id);
        } else if (op.op === "reload") {
          index.reset();
          for (const id of [...vectors.keys()].sort((a, b) => a - b)) index.add(id, vectors.get(id)!);
        } else if (op.op === "search") {
          const hits = index.search(Float32Array.from(op.vec), op.k);
          expect(hits.map((h) => h.id)).toEqual(op.ids);
          expect(hits.map((h) => h.score)).toEqual(op.scores);
          searches++;
        }
      }
    }
    expect(searches).toBeGreaterThan(300);
  });

  it("sums inner products in FAISS's order, so scores equal its to the last bit", () => {
    const { cases } = JSON.parse(
      readFileSync(new URL("./upstream-faiss-scores.json", import.meta.url), "utf8"),
    ) as { cases: Array<{ d: number; ids: number[]; scores: number[] }> };
    // The generator's integer recipe, so both sides hold the same float32 values.
    const vec = (seed: number, d: number) =>
      Float32Array.from({ length: d }, (_, i) => {
        const k = BigInt(seed * 7919 + i * 104729) * 2654435761n;
        return Number(k % 4294967296n) / 4294967296 - 0.5;
      });
    for (const c of cases) {
      const index = new FlatIpIndex();
      for (let seed = 1; seed <= 20; seed++) index.add(seed, vec(seed, c.d));
      const hits = index.search(vec(1000, c.d), 20);
      expect(
        hits.map((h) => h.id),
        `d=${c.d}`,
      ).toEqual(c.ids);
      expect(
        hits.map((h) => h.score),
        `d=${c.d}`,
      ).toEqual(c.scores);
    }
    expect(cases.map((c) => c.d)).toContain(384); // all-MiniLM-L6-v2's dimension
  });
});

/** Counts what it embeds, so a test can see the snapshot re-embedding happen once. */
function countingEmbedder(): Embedder & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    embed(batch) {
      texts.push(...batch);
      return Promise.resolve(batch.map((t) => bagOfWordsEmbedding(t, 64)));
    },
  };
}

describe("MemoryAPI_vector", () => {
  const open = (embedder: Embedder, snapshot?: ReturnType<typeof dict>) =>
    new BackendSession(
      dict([["MemoryAPI_vector", snapshot ? dict([["snapshot", snapshot]]) : dict([])]]),
      ["MemoryAPI_vector"],
      false,
      undefined,
      { embedder },
    );

  it("adds, searches, updates and removes with upstream's results and messages", async () => {
    const s = open(countingEmbedder());
    expect(
      await s.executeAsync([
        "core_memory_add(text='likes green tea')",
        "core_memory_add(text='lives in Portland')",
        "core_memory_add(text='likes green tea')",
      ]),
    ).toEqual(['{"id": 0}', '{"id": 1}', '{"id": 2}']);
    // Equal texts tie; FAISS lists the later-stored one first.
    const [hits] = await s.executeAsync(["core_memory_retrieve(query='green tea', top_k=2)"]);
    const parsed = JSON.parse(hits!) as {
      result: Array<{ id: number; similarity_score: number; text: string }>;
    };
    expect(parsed.result.map((r) => r.id)).toEqual([2, 0]);
    expect(parsed.result[0]!.similarity_score).toBe(parsed.result[1]!.similarity_score);
    expect(
      await s.executeAsync([
        "core_memory_remove(vec_id=7)",
        "core_memory_remove(vec_id=2)",
        "core_memory_update(vec_id=1.0, new_text='lives in Seattle')",
        "core_memory_retrieve_all()",
        `core_memory_add(text='${"x".repeat(301)}')`,
        "core_memory_retrieve(query='tea', top_k=0)",
      ]),
    ).toEqual([
      '{"error": "ID 7 not present in store."}',
      '{"status": "ID 2 removed from store."}',
      '{"status": "ID 1.0 updated."}',
      '{"result": [{"id": 0, "text": "likes green tea"}, {"id": 1, "text": "lives in Seattle"}]}',
      '{"error": "Entry length exceeds maximum length of 300 characters."}',
      "Error during execution: ",
    ]);
    expect(await s.executeAsync(["archival_memory_retrieve(query='x')", "core_memory_clear()"])).toEqual([
      '{"result": []}',
      '{"status": "Memory cleared."}',
    ]);
  });

  it("caps the store at its size and carries memory across conversations as upstream's snapshot", async () => {
    const e = countingEmbedder();
    const first = open(e);
    const adds = Array.from({ length: 8 }, (_, i) => `core_memory_add(text='fact ${i}')`);
    const out = await first.executeAsync([...adds, "core_memory_remove(vec_id=0)"]);
    expect(out[7]).toBe('{"error": "Memory size exceeds maximum size of 7 entries."}');
    const memory = first.instances.get("MemoryAPI_vector") as unknown as {
      snapshot(): ReturnType<typeof dict>;
      coreMemoryForContext(): string;
    };
    const snap = memory.snapshot();
    expect(JSON.parse(memory.coreMemoryForContext())).toEqual({
      "1": "fact 1",
      "2": "fact 2",
      "3": "fact 3",
      "4": "fact 4",
      "5": "fact 5",
      "6": "fact 6",
    });
    // The next conversation re-embeds the stored texts once, then keeps numbering after 7.
    const before = e.texts.length;
    const second = open(e, snap);
    expect(await second.executeAsync(["core_memory_add(text='fact 9')"])).toEqual(['{"id": 7}']);
    expect(e.texts.slice(before)).toEqual([
      "fact 1",
      "fact 2",
      "fact 3",
      "fact 4",
      "fact 5",
      "fact 6",
      "fact 9",
    ]);
    // An empty core store still prints as JSON (upstream's truthiness test never fires).
    const empty = open(e).instances.get("MemoryAPI_vector") as unknown as { coreMemoryForContext(): string };
    expect(empty.coreMemoryForContext()).toBe("{}");
  });

  it("refuses to run without an embedding service, or through the synchronous executor", () => {
    expect(() => new BackendSession(dict([]), ["MemoryAPI_vector"], false)).toThrow(/embedding service/);
    // A method that awaits a service cannot answer synchronously: a caller bug, not a tool error.
    expect(() => open(countingEmbedder()).execute(["core_memory_add(text='x')"])).toThrow(/executeAsync/);
    // Binding errors need no service and still read as Python's.
    expect(open(countingEmbedder()).execute(["core_memory_add()"])).toEqual([
      "Error during execution: MemoryAPI_vector.core_memory_add() missing 1 required positional argument: 'text'",
    ]);
  });

  it("answers upstream's recorded calls with its results, byte for byte", async () => {
    type Step = { call: string; result: string } | { reload: true; context: string };
    const { sequences } = JSON.parse(
      readFileSync(new URL("./upstream-memory-vector.json", import.meta.url), "utf8"),
    ) as { sequences: Step[][] };
    const embedder: Embedder = { embed: (t) => Promise.resolve(t.map((x) => bagOfWordsEmbedding(x, 64))) };
    type Memory = { snapshot(): ReturnType<typeof dict>; coreMemoryForContext(): string };
    const memoryOf = (s: BackendSession) => s.instances.get("MemoryAPI_vector") as unknown as Memory;
    let calls = 0;
    let hits = 0;
    for (const steps of sequences) {
      let s = open(embedder);
      for (const step of steps) {
        if ("reload" in step) {
          s = open(embedder, memoryOf(s).snapshot());
          expect(memoryOf(s).coreMemoryForContext()).toBe(step.context);
          continue;
        }
        const [got] = await s.executeAsync([step.call]);
        expect(got, step.call).toBe(step.result);
        calls++;
        if (step.result.includes("similarity_score")) hits++;
      }
    }
    expect(calls).toBeGreaterThan(700);
    expect(hits).toBeGreaterThan(100);
  });
});
