import { createServer } from "node:http";
import { listenLocal, sendJson } from "./http.js";

/**
 * A search API in SerpAPI's response shape, and the pages it links to, on 127.0.0.1: for
 * testing web-search agents without the internet. `GET /search.json?q=…` answers
 * `{organic_results: [{title, link, snippet}]}` with the results whose title or snippet holds
 * every query word (links to `/pages/<name>` point back at this server); `GET /pages/<name>`
 * serves that page's HTML. Scripted failures: `status` for the n-th search request.
 */
export interface SearchDocument {
  /** The page's path segment: served at `/pages/<name>`. */
  name: string;
  title: string;
  snippet: string;
  html: string;
}

export interface SearchServer {
  /** `http://127.0.0.1:PORT/search.json`: what `--search-endpoint` takes. */
  searchURL: string;
  /** `http://127.0.0.1:PORT/pages/<name>`. */
  pageURL(name: string): string;
  /** Each search request's query parameters, in order. */
  searches: Array<Record<string, string>>;
  close(): Promise<void>;
}

export async function startSearchServer(opts: {
  documents: SearchDocument[];
  /** HTTP status to answer the i-th search request with instead of results. */
  failSearch?: Record<number, number>;
}): Promise<SearchServer> {
  const searches: Array<Record<string, string>> = [];
  let base = "";
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const json = (status: number, body: unknown) => sendJson(res, status, body);
    if (url.pathname === "/search.json") {
      const i = searches.length;
      searches.push(Object.fromEntries(url.searchParams));
      const fail = opts.failSearch?.[i];
      if (fail !== undefined) {
        json(fail, { error: `HTTP ${fail}` });
        return;
      }
      const words = (url.searchParams.get("q") ?? "").toLowerCase().split(/\s+/).filter(Boolean);
      const hits = opts.documents.filter((d) =>
        words.every((w) => `${d.title} ${d.snippet}`.toLowerCase().includes(w)),
      );
      json(200, {
        search_metadata: { status: "Success" },
        organic_results: hits.map((d, position) => ({
          position: position + 1,
          title: d.title,
          link: `${base}/pages/${d.name}`,
          snippet: d.snippet,
        })),
      });
      return;
    }
    const page = url.pathname.startsWith("/pages/")
      ? opts.documents.find((d) => d.name === url.pathname.slice("/pages/".length))
      : undefined;
    if (page) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(page.html);
      return;
    }
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("not found");
  });
  base = await listenLocal(server);
  return {
    searchURL: `${base}/search.json`,
    pageURL: (name) => `${base}/pages/${name}`,
    searches,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
