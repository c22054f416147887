import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_PAGE_BYTES, serpApiWebSearch } from "../../../src/bench/bfcl/http-services.js";
import { BackendSession } from "../../../src/envs/bfcl/executor.js";
import { htmlToMarkdown, htmlToText } from "../../../src/envs/bfcl/html-text.js";
import { dict } from "../../../src/envs/bfcl/py-ops.js";
import type { WebSearchService } from "../../../src/envs/bfcl/services.js";
import { startSearchServer, type SearchServer } from "../../../src/testing/index.js";

const servers: SearchServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const session = (service: WebSearchService, showSnippet = true) =>
  new BackendSession(
    dict([["WebSearchAPI", dict([["show_snippet", showSnippet]])]]),
    ["WebSearchAPI"],
    false,
    undefined,
    { webSearch: service },
  );

const docs = [1, 2, 3].map((i) => ({
  name: `p${i}`,
  title: `Result ${i}`,
  snippet: `tea fact ${i}`,
  html: `<h2>Fact ${i}</h2><p>Tea <a href="/x">link</a></p>`,
}));

describe("WebSearchAPI", () => {
  it("keeps upstream's fields, slices max_results as Python does, and words its errors as upstream", async () => {
    const server = await startSearchServer({ documents: docs });
    servers.push(server);
    const s = session(serpApiWebSearch({ endpoint: server.searchURL }));
    const out = await s.executeAsync([
      "search_engine_query(keywords='tea', max_results=-1)",
      "search_engine_query(keywords='nothing matches')",
      "fetch_url_content(url='ftp://x')",
      `fetch_url_content(url='${server.pageURL("missing")}')`,
      `fetch_url_content(url='${server.pageURL("p1")}', mode='pdf')`,
      `fetch_url_content(url='${server.pageURL("p1")}')`,
      "search_engine_query(keywords='tea', max_results='2')",
    ]);
    expect(out).toEqual([
      `[{'title': 'Result 1', 'href': '${server.pageURL("p1")}', 'body': 'tea fact 1'}, {'title': 'Result 2', 'href': '${server.pageURL("p2")}', 'body': 'tea fact 2'}]`,
      "[]",
      "Error during execution: Invalid URL: ftp://x",
      `{"error": "An error occurred while fetching ${server.pageURL("missing")}: 404 Client Error: Not Found for url: ${server.pageURL("missing")}"}`,
      `{"error": "An error occurred while fetching ${server.pageURL("p1")}: Unsupported mode: pdf"}`,
      `{"content": "<h2>Fact 1</h2><p>Tea <a href=\\"/x\\">link</a></p>"}`,
      "Error during execution: slice indices must be integers or None or have an __index__ method",
    ]);
    expect(server.searches.map((q) => q.q)).toEqual(["tea", "nothing matches", "tea"]);
    // No snippet category: title and link only.
    expect(
      await session(serpApiWebSearch({ endpoint: server.searchURL }), false).executeAsync([
        "search_engine_query(keywords='fact 3')",
      ]),
    ).toEqual([`[{'title': 'Result 3', 'href': '${server.pageURL("p3")}'}]`]);
  });

  it("retries a rate-limited search and reports a failed one as upstream's payload check does", async () => {
    const server = await startSearchServer({ documents: docs, failSearch: { 0: 429, 2: 500 } });
    servers.push(server);
    const s = session(serpApiWebSearch({ endpoint: server.searchURL, retryBaseMs: 1 }));
    const out = await s.executeAsync([
      "search_engine_query(keywords='fact 2')",
      "search_engine_query(keywords='fact 2')",
    ]);
    expect(out[0]).toBe(`[{'title': 'Result 2', 'href': '${server.pageURL("p2")}', 'body': 'tea fact 2'}]`);
    expect(out[1]).toBe(
      '{"error": "Failed to retrieve the search results from server. Please try again later."}',
    );
    expect(server.searches).toHaveLength(3);
  });

  it("refuses a page past the size cap instead of reading it whole", async () => {
    const server = await startSearchServer({
      documents: [{ name: "huge", title: "t", snippet: "s", html: "x".repeat(MAX_PAGE_BYTES + 1) }],
    });
    servers.push(server);
    const url = server.pageURL("huge");
    expect(
      await session(serpApiWebSearch({ endpoint: server.searchURL })).executeAsync([
        `fetch_url_content(url='${url}')`,
      ]),
    ).toEqual([
      `{"error": "An error occurred while fetching ${url}: page larger than ${MAX_PAGE_BYTES} bytes"}`,
    ]);
  });

  it("an unreachable search service is the tool's error text, not a crash", async () => {
    const failing: WebSearchService = {
      search: () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:9")),
      fetchPage: () => Promise.reject(new Error("fetch failed")),
    };
    expect(
      await session(failing).executeAsync([
        "search_engine_query(keywords='x')",
        "fetch_url_content(url='https://example.com/a', mode='truncate')",
      ]),
    ).toEqual([
      '{"error": "connect ECONNREFUSED 127.0.0.1:9"}',
      '{"error": "An error occurred while fetching https://example.com/a: fetch failed"}',
    ]);
  });
});

describe("WebSearchAPI against upstream's recorded results", () => {
  /** Upstream's web_search.py run on canned search answers and pages (kept with the results). */
  const recorded = JSON.parse(
    readFileSync(new URL("./upstream-web-search.json", import.meta.url), "utf8"),
  ) as {
    canned: {
      searches: Record<string, unknown>;
      pages: Record<string, { status: number; reason: string; text: string }>;
    };
    calls: Array<{ show_snippet: boolean; call: string; result: string }>;
  };
  const { searches, pages } = recorded.canned;
  const canned: WebSearchService = {
    search: (keywords) => {
      const r = searches[keywords] ?? { organic_results: [] };
      return r === "RAISE" ? Promise.reject(new Error("Connection refused")) : Promise.resolve(r);
    },
    fetchPage: (url) => {
      const p = pages[url];
      if (!p) return Promise.reject(new Error(`Failed to resolve '${url}'`));
      return Promise.resolve({ url, status: p.status, statusText: p.reason, text: p.text });
    },
  };

  it("returns upstream's result strings for every recorded call", async () => {
    for (const c of recorded.calls) {
      const [got] = await session(canned, c.show_snippet).executeAsync([c.call]);
      expect(got, `${c.call} (show_snippet ${c.show_snippet})`).toBe(c.result);
    }
    expect(recorded.calls.length).toBe(32);
  });
});

describe("page text", () => {
  /** BeautifulSoup 4's get_text("\n", strip=True) over sample pages, recorded (results only). */
  const recorded = JSON.parse(
    readFileSync(new URL("./upstream-html-text.json", import.meta.url), "utf8"),
  ) as Array<{ html: string; text: string }>;

  it("equals BeautifulSoup's text on the recorded pages", () => {
    for (const { html, text } of recorded) expect(htmlToText(html)).toBe(text);
  });

  it("renders headings, lists and links as Markdown", () => {
    expect(
      htmlToMarkdown(
        `<h1>Top</h1><ul><li>a</li><li>b</li></ul><p>See <a href="https://x.org/?a=1&amp;b=2">the <b>docs</b></a>.</p>`,
      ),
    ).toBe("# Top\n\n  * a\n  * b\n\nSee [the docs](https://x.org/?a=1&b=2).\n\n");
  });
});
