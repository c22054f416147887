import { Backend, m, type MethodSpec } from "./backend.js";
import { htmlToMarkdown, htmlToText } from "./html-text.js";
import { dict, PyError, str, valueError } from "./py-ops.js";
import { pyType, type PyDict, type PyValue } from "./py-value.js";
import type { WebSearchService } from "./services.js";

/**
 * Port of upstream's `WebSearchAPI` (`web_search.py`): `search_engine_query` asks SerpAPI's
 * DuckDuckGo engine (here: the caller's search service, which answers in SerpAPI's shape) and
 * keeps title, link and, unless the category hides them, the snippet; `fetch_url_content`
 * fetches a page and returns it raw, as text, or as Markdown. Upstream's simulated fetch
 * errors are switched off there, so they are not ported.
 */
export class WebSearch extends Backend {
  readonly className = "WebSearchAPI";
  show_snippet = true;
  private cached?: Record<string, MethodSpec>;

  constructor(private readonly service: WebSearchService) {
    super();
  }

  loadScenario(config: PyDict): void {
    if ("show_snippet" in config) this.show_snippet = config.show_snippet === true;
  }

  publicState(): Record<string, PyValue> {
    return { show_snippet: this.show_snippet };
  }

  methods(): Record<string, MethodSpec> {
    return (this.cached ??= {
      search_engine_query: m([["keywords"], ["max_results", 10], ["region", "wt-wt"]], (a) =>
        this.search(a.keywords!, a.max_results!, a.region!),
      ),
      fetch_url_content: m([["url"], ["mode", "raw"]], (a) => this.fetchUrl(a.url!, a.mode!)),
    });
  }

  private async search(keywords: PyValue, maxResults: PyValue, region: PyValue): Promise<PyValue> {
    let body: unknown;
    try {
      body = await this.service.search(str(keywords), str(region));
    } catch (e) {
      return dict([["error", (e as Error).message]]);
    }
    const organic =
      body !== null && typeof body === "object"
        ? (body as Record<string, unknown>).organic_results
        : undefined;
    if (!Array.isArray(organic)) {
      return dict([["error", "Failed to retrieve the search results from server. Please try again later."]]);
    }
    return pySlice(organic, maxResults).map((r) => {
      const field = (k: string): PyValue => {
        const v = r !== null && typeof r === "object" ? (r as Record<string, unknown>)[k] : undefined;
        if (v === undefined) throw new PyError("KeyError", `'${k}'`);
        return typeof v === "string" ? v : str(v as PyValue);
      };
      return this.show_snippet
        ? dict([
            ["title", field("title")],
            ["href", field("link")],
            ["body", field("snippet")],
          ])
        : dict([
            ["title", field("title")],
            ["href", field("link")],
          ]);
    });
  }

  private async fetchUrl(url: PyValue, mode: PyValue): Promise<PyValue> {
    // Raised before upstream's try block, so the executor prints it as an exception.
    if (typeof url !== "string") {
      throw new PyError("AttributeError", `'${pyType(url)}' object has no attribute 'startswith'`);
    }
    if (!url.startsWith("http://") && !url.startsWith("https://")) throw valueError(`Invalid URL: ${url}`);
    const failed = (why: string) => dict([["error", `An error occurred while fetching ${url}: ${why}`]]);
    try {
      const page = await this.service.fetchPage(url);
      if (page.status >= 400) {
        const kind = page.status < 500 ? "Client" : "Server";
        return failed(`${page.status} ${kind} Error: ${page.statusText} for url: ${page.url}`);
      }
      if (mode === "raw") return dict([["content", page.text]]);
      if (mode === "markdown") return dict([["content", htmlToMarkdown(page.text)]]);
      if (mode === "truncate") return dict([["content", htmlToText(page.text)]]);
      return failed(`Unsupported mode: ${str(mode)}`);
    } catch (e) {
      return failed((e as Error).message);
    }
  }
}

/** `items[:n]` with Python's slice rules (None: all; negative: from the end). */
function pySlice<T>(items: T[], n: PyValue): T[] {
  if (n === null) return items;
  if (typeof n !== "number" && typeof n !== "boolean") {
    throw new PyError("TypeError", "slice indices must be integers or None or have an __index__ method");
  }
  const k = Number(n);
  return items.slice(0, k < 0 ? Math.max(0, items.length + k) : k);
}
