import { EnvaceError } from "../../core/errors.js";
import type { Embedder, FetchedPage, WebSearchService } from "../../envs/bfcl/services.js";

/**
 * The services `envace eval --bench bfcl:…` hands the agentic backends, over HTTP: an
 * OpenAI-compatible `/embeddings` endpoint for vector memory, and a search endpoint in SerpAPI's
 * shape plus plain page fetches for web search.
 */
const endpointError = (msg: string) => new EnvaceError("ENDPOINT_ERROR", msg);

export function openAIEmbedder(o: { baseURL: string; model: string; apiKey?: string }): Embedder {
  const url = `${o.baseURL.replace(/\/+$/, "")}/embeddings`;
  return {
    async embed(texts) {
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: o.model, input: texts, encoding_format: "float" }),
        });
      } catch (e) {
        throw endpointError(`embedding endpoint ${url} unreachable: ${(e as Error).message}`);
      }
      const body = (await res.json().catch(() => undefined)) as
        { data?: Array<{ index?: number; embedding?: unknown }> } | undefined;
      if (!res.ok || !Array.isArray(body?.data)) {
        throw endpointError(`embedding endpoint ${url} answered ${res.status} without a data list`);
      }
      const rows = [...body.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      return rows.map((r, i) => {
        const v = r.embedding;
        if (!Array.isArray(v) || !v.every((x) => typeof x === "number" && Number.isFinite(x))) {
          throw endpointError(`embedding endpoint ${url}: item ${i} is not a list of numbers`);
        }
        return v as number[];
      });
    },
  };
}

export interface SerpApiOptions {
  /** e.g. `https://serpapi.com/search.json`; queried as upstream queries it (engine=duckduckgo, q, kl). */
  endpoint: string;
  /** Sent as `api_key` (upstream reads SERPAPI_API_KEY). */
  apiKey?: string;
  /** First back-off after a 429, in ms (upstream: 2 s, doubling to 120 s). */
  retryBaseMs?: number;
  /** 429s tolerated before giving up (upstream retries forever). */
  maxRetries?: number;
  /** Page fetch timeout (upstream: 20 s). */
  fetchTimeoutMs?: number;
}

/** Pages past this size are refused (upstream reads any size; a model's context holds far less). */
export const MAX_PAGE_BYTES = 10 * 1024 * 1024;

/** The body as text, read in chunks so an endless or huge page fails instead of filling memory. */
async function cappedText(res: Response): Promise<string> {
  if (!res.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_PAGE_BYTES) throw new Error(`page larger than ${MAX_PAGE_BYTES} bytes`);
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

/** A browser-like header set, as upstream sends, so sites answer as they would a browser. */
const BROWSER_HEADERS = {
  "User-Agent":
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Safari/537.36",
  Accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "Accept-Language": "en-US,en;q=0.9",
};

export function serpApiWebSearch(o: SerpApiOptions): WebSearchService {
  const retryBaseMs = o.retryBaseMs ?? 2000;
  const maxRetries = o.maxRetries ?? 8;
  return {
    async search(keywords, region) {
      const url = new URL(o.endpoint);
      url.searchParams.set("engine", "duckduckgo");
      url.searchParams.set("q", keywords);
      url.searchParams.set("kl", region);
      if (o.apiKey) url.searchParams.set("api_key", o.apiKey);
      let backoff = retryBaseMs;
      for (let attempt = 0; ; attempt++) {
        const res = await fetch(url);
        const text = await res.text();
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          throw new Error(`search endpoint answered ${res.status} with a body that is not JSON`);
        }
        const payloadError =
          body !== null && typeof body === "object" ? (body as { error?: unknown }).error : undefined;
        const rateLimited =
          res.status === 429 || (payloadError !== undefined && String(payloadError).includes("429"));
        if (!rateLimited) return body;
        if (attempt >= maxRetries)
          throw new Error(`429 Too Many Requests from the search endpoint after ${attempt + 1} tries`);
        await new Promise((r) => setTimeout(r, backoff + Math.random() * backoff));
        backoff = Math.min(backoff * 2, 120_000);
      }
    },
    async fetchPage(url): Promise<FetchedPage> {
      const res = await fetch(url, {
        headers: BROWSER_HEADERS,
        redirect: "follow",
        signal: AbortSignal.timeout(o.fetchTimeoutMs ?? 20_000),
      });
      return {
        url: res.url || url,
        status: res.status,
        statusText: res.statusText,
        text: await cappedText(res),
      };
    },
  };
}
