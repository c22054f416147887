import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  startEmbeddingServer,
  startSearchServer,
  type EmbeddingServer,
  type MockChatBody,
  type SearchServer,
} from "../../../src/testing/index.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";
import { envaceExec } from "../../cli.js";

const envace = (args: string[]) => envaceExec(args);

interface BfclJson {
  bench: string;
  tasks: number;
  accuracy: number;
  summary: Record<string, { accuracy: number; complete: boolean }>;
  overall: number;
  not_run: Record<string, string>;
  results: Array<{ id: string; valid: boolean; error_type?: string }>;
}

describe("envace eval --bench bfcl", () => {
  it("gold on the non-live collection: per-category accuracy, groups and overall in --json", async () => {
    const { stdout } = await envace(["eval", "--bench", "bfcl:non_live", "--policy", "gold", "--json"]);
    const s = JSON.parse(stdout) as BfclJson;
    expect(s.bench).toBe("bfcl:non_live");
    expect(s.tasks).toBe(1390);
    // Two Java entries no output can pass under upstream's checker (see ast-checker.test.ts).
    expect(s.results.filter((r) => !r.valid).map((r) => r.id)).toEqual(["simple_java_36", "simple_java_65"]);
    expect(s.summary.non_live!.accuracy).toBeCloseTo((1 + 0.98 + 1) / 3 / 4 + 3 / 4, 10);
    expect(s.summary.irrelevance).toMatchObject({ accuracy: 0.5, complete: false });
    expect(s.overall).toBeCloseTo(((s.summary.non_live!.accuracy + 0) * 10 + 0.5 * 10) / 100, 10);
    expect(Object.keys(s.not_run)).toEqual([]);
  }, 120_000);

  it("a replay file is scored line by line; the human report lists failures", async () => {
    const dir = mkdtempSync(join(tmpdir(), "envace-bfcl-"));
    const file = join(dir, "r.jsonl");
    writeFileSync(
      file,
      `{"id": "irrelevance_0", "calls": []}\n{"id": "irrelevance_1", "calls": [{"f": {"x": 1}}]}\n`,
    );
    const { stdout } = await envace(["eval", "--bench", "bfcl:irrelevance", "--policy", `replay:${file}`]);
    expect(stdout).toMatch(/bfcl:irrelevance: 2 candidates, accuracy 50\.00%/);
    expect(stdout).toContain("✗ irrelevance_1: irrelevance_error:decoder_success");
  }, 120_000);

  it("bad input exits 2 with a message", async () => {
    await expect(envace(["eval", "--bench", "bfcl:nonsense", "--policy", "gold"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/unknown BFCL category "nonsense"/),
    });
    await expect(envace(["eval", "--bench", "bfcl:simple_python"])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/an agent is needed/),
    });
  }, 120_000);

  it("vector memory and web search run against the services the flags name (local servers)", async () => {
    const embeddings = await startEmbeddingServer();
    const search = await startSearchServer({
      documents: [
        {
          name: "tea",
          title: "Richest people in China",
          snippet: "Forbes billionaires",
          html: "<p>The richest is Zhang Yiming.</p>",
        },
      ],
    });
    services.push(embeddings, search);
    const model = await startModel({
      handler: (body: MockChatBody) => {
        const last = body.messages[body.messages.length - 1]!;
        const content = String(last.content ?? "");
        if (last.role === "tool") {
          const stored = /first name is (\w+)/.exec(content);
          if (stored) return `{'answer': '${stored[1]}'}`;
          const href = /'href': '([^']+)'/.exec(content);
          if (href)
            return {
              toolCalls: [{ name: "fetch_url_content", arguments: { url: href[1], mode: "truncate" } }],
            };
          const who = /richest is ([\w ]+)\./.exec(content);
          return who ? `{'answer': '${who[1]}'}` : "Noted.";
        }
        if (content.includes("My name is Michael"))
          return {
            toolCalls: [{ name: "archival_memory_add", arguments: { text: "first name is Michael" } }],
          };
        if (content === "What is my first name?")
          return { toolCalls: [{ name: "archival_memory_retrieve", arguments: { query: "first name" } }] };
        if (content.includes("richest billionaire"))
          return { toolCalls: [{ name: "search_engine_query", arguments: { keywords: "richest china" } }] };
        return "Okay.";
      },
    });
    const common = ["--endpoint", model.baseURL, "--model", "m", "--limit", "1", "--json"];
    const vector = JSON.parse(
      (
        await envace([
          "eval",
          "--bench",
          "bfcl:memory_vector",
          "--embedding-endpoint",
          embeddings.baseURL,
          ...common,
        ])
      ).stdout,
    ) as BfclJson;
    expect(vector.results).toEqual([{ id: "memory_vector_0-customer-0", valid: true }]);
    expect(embeddings.requests.flat()).toContain("first name");
    const web = JSON.parse(
      (await envace(["eval", "--bench", "bfcl:web_search", "--search-endpoint", search.searchURL, ...common]))
        .stdout,
    ) as BfclJson;
    expect(web.results).toEqual([
      { id: "web_search_base_0", valid: true },
      { id: "web_search_no_snippet_0", valid: true },
    ]);
    // Without the flags a model run names what is missing.
    const bare = await envace([
      "eval",
      "--bench",
      "bfcl:agentic",
      "--endpoint",
      model.baseURL,
      "--model",
      "m",
      "--limit",
      "1",
    ]);
    expect(bare.stdout).toMatch(/not run: memory_vector: needs an embedding service: --embedding-endpoint/);
    expect(bare.stdout).toMatch(/not run: web_search_base: needs a search API: --search-endpoint/);
    const help = await envace(["eval", "--help"]);
    expect(help.stdout).toContain("--embedding-endpoint");
    expect(help.stdout).toContain("--search-endpoint");
  }, 240_000);
});

const startModel = mockServersClosedAfterEach();
const services: Array<EmbeddingServer | SearchServer> = [];
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
});
