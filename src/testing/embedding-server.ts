import { createServer } from "node:http";
import { listenLocal, readBody, sendJson } from "./http.js";

/**
 * A deterministic OpenAI-compatible embeddings server on 127.0.0.1 (`POST /v1/embeddings`), for
 * testing what needs an embedding model (BFCL's vector memory) without one: each text becomes a
 * bag of its lower-cased words hashed into `dimensions` slots, so texts sharing words are close
 * and equal texts are equal. Every request's inputs are recorded.
 */
export function bagOfWordsEmbedding(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    // FNV-1a: a stable hash, the same on every run and machine.
    let h = 0x811c9dc5;
    for (const ch of word) h = Math.imul(h ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
    v[h % dimensions]! += 1;
  }
  return v;
}

export interface EmbeddingServer {
  /** `http://127.0.0.1:PORT/v1`: the base URL a client takes. */
  baseURL: string;
  /** The `input` of each request, as lists of texts. */
  requests: string[][];
  close(): Promise<void>;
}

export async function startEmbeddingServer(opts: { dimensions?: number } = {}): Promise<EmbeddingServer> {
  const dimensions = opts.dimensions ?? 64;
  const requests: string[][] = [];
  const server = createServer((req, res) => {
    void readBody(req).then(
      (text) => {
        const send = (status: number, body: unknown) => sendJson(res, status, body);
        if (req.method !== "POST" || !/^(\/v1)?\/embeddings$/.test(req.url ?? "")) {
          send(404, { error: { message: `no route ${req.method} ${req.url}` } });
          return;
        }
        let body: { input?: unknown; model?: unknown };
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          send(400, { error: { message: "body is not JSON" } });
          return;
        }
        const input = typeof body.input === "string" ? [body.input] : body.input;
        if (!Array.isArray(input) || !input.every((t) => typeof t === "string")) {
          send(400, { error: { message: "input must be a string or a list of strings" } });
          return;
        }
        requests.push(input as string[]);
        send(200, {
          object: "list",
          model: typeof body.model === "string" ? body.model : "bag-of-words",
          data: (input as string[]).map((t, index) => ({
            object: "embedding",
            index,
            embedding: bagOfWordsEmbedding(t, dimensions),
          })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        });
      },
      () => res.destroy(),
    );
  });
  const url = await listenLocal(server);
  return {
    baseURL: `${url}/v1`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
