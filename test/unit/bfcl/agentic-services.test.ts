import { afterEach, describe, expect, it } from "vitest";
import { bfclBenchRunner } from "../../../src/bench/bfcl/bench-runner.js";
import { runBfcl } from "../../../src/bench/bfcl/run-bfcl.js";
import {
  startEmbeddingServer,
  startSearchServer,
  type EmbeddingServer,
  type MockChatBody,
  type SearchServer,
} from "../../../src/testing/index.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";
import { BFCL_DIR } from "./data.js";

const startServer = mockServersClosedAfterEach();
const services: Array<EmbeddingServer | SearchServer> = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});

const lastMessage = (body: MockChatBody) => body.messages[body.messages.length - 1]!;

describe("agentic categories that call a service", () => {
  it("gold and replay need no service; a model run without one reports them not run", async () => {
    const gold = await runBfcl({
      bfclDir: BFCL_DIR,
      categories: ["memory_vector", "web_search_base", "web_search_no_snippet"],
      policy: { kind: "gold" },
    });
    expect(gold.categories).toEqual({
      memory_vector: { accuracy: 1, total: 155, ran: true },
      web_search_base: { accuracy: 1, total: 100, ran: true },
      web_search_no_snippet: { accuracy: 1, total: 100, ran: true },
    });
    expect(gold.results[155]!.id).toBe("web_search_base_0");
    const server = await startServer({ handler: () => "unused" });
    const run = await runBfcl({
      bfclDir: BFCL_DIR,
      categories: ["memory_vector", "web_search_base"],
      policy: { kind: "model", model: { baseURL: server.baseURL, model: "m", mode: "fc" } },
    });
    expect(run.results).toEqual([]);
    expect(run.not_run.memory_vector).toMatch(/--embedding-endpoint/);
    expect(run.not_run.web_search_base).toMatch(/--search-endpoint/);
    expect(server.requests).toHaveLength(0);
  });

  it("vector memory: the model stores in the prerequisites and retrieves by embedding (local servers)", async () => {
    const embeddings = await startEmbeddingServer();
    services.push(embeddings);
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const last = lastMessage(body);
        const content = String(last.content ?? "");
        if (last.role === "tool") {
          const parsed = JSON.parse(content) as { result?: Array<{ text: string }> };
          const hit = parsed.result?.[0]?.text.match(/first name is (\w+)/);
          return hit ? `{'answer': '${hit[1]}', 'context': 'memory'}` : "Noted.";
        }
        if (content.includes("My name is Michael")) {
          return {
            toolCalls: [{ name: "core_memory_add", arguments: { text: "The user's first name is Michael" } }],
          };
        }
        if (content === "What is my first name?") {
          return {
            toolCalls: [{ name: "core_memory_retrieve", arguments: { query: "first name", top_k: 1 } }],
          };
        }
        return "Okay.";
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "memory_vector",
      endpoint: server.baseURL,
      model: "m",
      embeddingEndpoint: embeddings.baseURL,
      limit: 1,
      trials: 1,
      concurrency: 1,
    } as Parameters<ReturnType<typeof bfclBenchRunner>["run"]>[0]);
    expect(summary.results).toEqual([{ id: "memory_vector_0-customer-0", valid: true }]);
    // Stored in a prerequisite, re-embedded from the snapshot for the question, then the query.
    const embedded = embeddings.requests.flat();
    expect(embedded.filter((t) => t === "The user's first name is Michael").length).toBeGreaterThanOrEqual(2);
    expect(embedded).toContain("first name");
    // The question's system prompt shows the core store as upstream dumps it.
    const question = server.requests.find((r) =>
      r.body.messages.some((m) => m.content === "What is my first name?"),
    )!;
    expect(String(question.body.messages[0]!.content)).toContain(`"0": "The user's first name is Michael"`);
  });

  it("web search: queries the search API in SerpAPI's shape and reads the page (local servers)", async () => {
    const search = await startSearchServer({
      documents: [
        {
          name: "billionaires",
          title: "Richest people in China",
          snippet: "Forbes list of China's richest billionaires, April 2025",
          html: "<html><head><style>p{}</style><script>var x = 1;</script></head><body><h1>Forbes</h1><p>The richest is Zhang Yiming &amp; family.</p></body></html>",
        },
      ],
    });
    services.push(search);
    const toolResults: string[] = [];
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const last = lastMessage(body);
        const content = String(last.content ?? "");
        if (last.role === "tool") {
          toolResults.push(content);
          const href = /'href': '([^']+)'/.exec(content);
          if (href)
            return {
              toolCalls: [{ name: "fetch_url_content", arguments: { url: href[1], mode: "truncate" } }],
            };
          const who = /richest is ([\w ]+?) &/.exec(content);
          return `{'answer': '${who?.[1] ?? "I do not know"}', 'context': 'Forbes'}`;
        }
        return { toolCalls: [{ name: "search_engine_query", arguments: { keywords: "richest china" } }] };
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "web_search",
      endpoint: server.baseURL,
      model: "m",
      searchEndpoint: search.searchURL,
      searchApiKey: "k-123",
      limit: 1,
      trials: 1,
      concurrency: 1,
    } as Parameters<ReturnType<typeof bfclBenchRunner>["run"]>[0]);
    expect(summary.results).toEqual([
      { id: "web_search_base_0", valid: true },
      { id: "web_search_no_snippet_0", valid: true },
    ]);
    expect(search.searches[0]).toEqual({
      engine: "duckduckgo",
      q: "richest china",
      kl: "wt-wt",
      api_key: "k-123",
    });
    const page = search.pageURL("billionaires");
    expect(toolResults).toEqual([
      `[{'title': 'Richest people in China', 'href': '${page}', 'body': "Forbes list of China's richest billionaires, April 2025"}]`,
      '{"content": "Forbes\\nThe richest is Zhang Yiming & family."}',
      `[{'title': 'Richest people in China', 'href': '${page}'}]`,
      '{"content": "Forbes\\nThe richest is Zhang Yiming & family."}',
    ]);
  });
});

describe("agentic categories in prompting mode", () => {
  it("memory: Python-call replies fill the memory; the reply that is not a call is the answer", async () => {
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const last = lastMessage(body);
        const content = String(last.content ?? "");
        // Tool results come back as a user message holding their Python repr.
        if (content.startsWith("[{'role': 'tool'")) {
          const value = /"value": "(\w+)"/.exec(content);
          return value ? `{'answer': '${value[1]}', 'context': 'memory'}` : "Noted.";
        }
        if (content.includes("My name is Michael"))
          return "[core_memory_add(key='first_name', value='Michael')]";
        if (content === "What is my first name?") return "[core_memory_retrieve(key='first_name')]";
        return "Okay.";
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "memory_kv",
      endpoint: server.baseURL,
      model: "m",
      bfclMode: "prompting",
      limit: 1,
      trials: 1,
      concurrency: 1,
    } as Parameters<ReturnType<typeof bfclBenchRunner>["run"]>[0]);
    expect(summary.results).toEqual([{ id: "memory_kv_0-customer-0", valid: true }]);
    // Upstream's order: the default system prompt (with the docs), the memory prompt, the answer format.
    const question = server.requests.find((r) =>
      r.body.messages.some((m) => m.content === "What is my first name?"),
    )!;
    const system = String(question.body.messages[0]!.content);
    expect(system).toMatch(/^You are an expert in composing functions\./);
    expect(system.indexOf('"name": "core_memory_add"')).toBeLessThan(
      system.indexOf('"first_name": "Michael"'),
    );
    expect(system.indexOf('"first_name": "Michael"')).toBeLessThan(
      system.indexOf("For your final answer to the user"),
    );
    expect(question.body.tools).toBeUndefined();
  });

  it("web search: a search and a fetch as Python calls, then the answer", async () => {
    const search = await startSearchServer({
      documents: [
        {
          name: "p",
          title: "Richest in China",
          snippet: "Forbes",
          html: "<p>The richest is Zhang Yiming.</p>",
        },
      ],
    });
    services.push(search);
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const content = String(lastMessage(body).content ?? "");
        if (!content.startsWith("[{'role': 'tool'")) return "[search_engine_query(keywords='richest china')]";
        const href = /'href': '([^']+)'/.exec(content);
        if (href) return `[fetch_url_content(url='${href[1]}', mode='truncate')]`;
        return `{'answer': '${/richest is ([\w ]+)\./.exec(content)?.[1] ?? "I do not know"}'}`;
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "web_search_base",
      endpoint: server.baseURL,
      model: "m",
      bfclMode: "prompting",
      searchEndpoint: search.searchURL,
      limit: 1,
      trials: 1,
      concurrency: 1,
    } as Parameters<ReturnType<typeof bfclBenchRunner>["run"]>[0]);
    expect(summary.results).toEqual([{ id: "web_search_base_0", valid: true }]);
    expect(server.requests).toHaveLength(3);
  });
});
