/**
 * What the agentic backends reach outside the process for. Upstream hard-wires them (a local
 * SentenceTransformer for vector memory, SerpAPI and `requests.get` for web search); here the
 * caller supplies them, so a run without them reports those categories as not run.
 */

/** Turns texts into vectors (upstream: `all-MiniLM-L6-v2`); the vector store normalises them. */
export interface Embedder {
  embed(texts: string[]): Promise<number[][]>;
}

/** A page as `requests.get` saw it, after redirects. */
export interface FetchedPage {
  url: string;
  status: number;
  statusText: string;
  text: string;
}

/**
 * Upstream's two outside calls of `WebSearchAPI`: a SerpAPI DuckDuckGo query (the parsed JSON
 * body, which holds `organic_results` or `error`) and a page fetch. Either may throw; the backend
 * turns the message into the tool's error text as upstream does.
 */
export interface WebSearchService {
  search(keywords: string, region: string): Promise<unknown>;
  fetchPage(url: string): Promise<FetchedPage>;
}

export interface BackendServices {
  embedder?: Embedder;
  webSearch?: WebSearchService;
}
