import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agenticChecker } from "../../../src/bench/bfcl/agentic-checker.js";
import { bfclBenchRunner } from "../../../src/bench/bfcl/bench-runner.js";
import { goldCalls } from "../../../src/bench/bfcl/gold.js";
import { loadCategory } from "../../../src/bench/bfcl/load.js";
import { readBfclReplay } from "../../../src/bench/bfcl/replay-file.js";
import { resolveCategories, runBfcl } from "../../../src/bench/bfcl/run-bfcl.js";
import { summarize } from "../../../src/bench/bfcl/score.js";
import { jsonDumps } from "../../../src/envs/bfcl/py-ops.js";
import { parseCall } from "../../../src/envs/bfcl/python-call-parser.js";
import { dictEntries, type PyDict } from "../../../src/envs/bfcl/py-value.js";
import type { MockChatBody } from "../../../src/testing/index.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";
import { BFCL_DIR } from "./data.js";

const startServer = mockServersClosedAfterEach();

describe("overall score", () => {
  it("uses upstream's groups and weights; categories not run count 0", () => {
    const s = summarize({
      simple_python: { accuracy: 1, total: 400, ran: true },
      simple_java: { accuracy: 0.5, total: 100, ran: true },
      simple_javascript: { accuracy: 0, total: 50, ran: true },
      multiple: { accuracy: 1, total: 200, ran: true },
      parallel: { accuracy: 1, total: 200, ran: true },
      parallel_multiple: { accuracy: 1, total: 200, ran: true },
      live_simple: { accuracy: 1, total: 100, ran: true },
      live_multiple: { accuracy: 0.5, total: 300, ran: true },
      irrelevance: { accuracy: 1, total: 240, ran: true },
      multi_turn_base: { accuracy: 0.8, total: 200, ran: true },
    });
    // simple = mean(1, .5, 0) = .5; non-live = mean(.5, 1, 1, 1) = .875
    expect(s.groups.non_live!.accuracy).toBeCloseTo(0.875, 12);
    // live weights by count: (100*1 + 300*.5) / 400 = .625 (parallel ones not run: 0 entries)
    expect(s.groups.live!.accuracy).toBeCloseTo(0.625, 12);
    expect(s.groups.irrelevance!.accuracy).toBeCloseTo(0.5, 12); // live_irrelevance not run → 0
    expect(s.groups.multi_turn!.accuracy).toBeCloseTo(0.2, 12);
    expect(s.overall).toBeCloseTo((0.875 * 10 + 0.625 * 10 + 0.5 * 10 + 0.2 * 30 + 0 * 40) / 100, 12);
    expect(s.not_run).toContain("memory_kv");
    expect(s.groups.live!.complete).toBe(false);
  });
});

describe("categories", () => {
  it("resolves upstream's collections and refuses unknown names", () => {
    expect(resolveCategories("live")).toEqual([
      "live_simple",
      "live_multiple",
      "live_parallel",
      "live_parallel_multiple",
      "live_irrelevance",
      "live_relevance",
    ]);
    expect(resolveCategories("multi_turn_base")).toEqual(["multi_turn_base"]);
    expect(() => resolveCategories("simple")).toThrow(/unknown BFCL category "simple"/);
  });
});

describe("replay files", () => {
  it("scores every line on its own, in file order, with lossless numbers", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bfcl-replay-"));
    const file = join(dir, "r.jsonl");
    writeFileSync(
      file,
      [
        `{"id": "simple_python_0", "calls": [{"calculate_triangle_area": {"base": 10, "height": 5}}]}`,
        `{"id": "simple_python_0", "calls": [{"calculate_triangle_area": {"base": 10.0, "height": 5}}]}`,
        `{"id": "multi_turn_base_1", "turns": [[["ls(a=True)"]], [["cd(folder='workspace')", "mv(source='log.txt',destination='archive')"]], [["cd(folder='archive')"], ["grep(file_name='log.txt',pattern='Error')"]], [["tail(file_name='log.txt',lines=20)"]]]}`,
        `{"id": "multi_turn_base_1", "turns": [[["ls(a=True)"]], [], [], []]}`,
      ].join("\n"),
    );
    const lines = readBfclReplay(file);
    const run = await runBfcl({
      bfclDir: BFCL_DIR,
      categories: ["simple_python", "multi_turn_base"],
      policy: { kind: "replay", lines },
    });
    expect(run.results.map((r) => [r.id, r.valid, r.error_type])).toEqual([
      ["simple_python_0", true, undefined],
      // 10.0 where the doc says integer: upstream's int/float distinction
      ["simple_python_0", false, "type_error:simple"],
      ["multi_turn_base_1", true, undefined],
      ["multi_turn_base_1", false, "multi_turn:empty_turn_model_response"],
    ]);
    expect(run.categories.simple_python).toEqual({ accuracy: 0.5, total: 2, ran: true });
  });
  it("rejects malformed lines with the line number", () => {
    const dir = mkdtempSync(join(tmpdir(), "bfcl-replay-"));
    const file = join(dir, "bad.jsonl");
    writeFileSync(file, `{"id": "x", "calls": []}\n{"id": "y"}\n`);
    expect(() => readBfclReplay(file)).toThrow(/bad.jsonl:2: needs "calls"/);
  });
});

/** Native tool calls for a gold AST answer, as an OpenAI server would send them. */
function toolCallsFor(calls: PyDict[]) {
  return calls.map((c, i) => {
    const [name, args] = dictEntries(c)[0]!;
    return { id: `call_${i}`, name: name.replace(/\./g, "_"), arguments: jsonDumps(args) };
  });
}

describe("a model endpoint (mock OpenAI server)", () => {
  it("FC mode: single-turn tool calls are scored with upstream's name mapping and lossless arguments", async () => {
    const { entries, answers } = loadCategory(BFCL_DIR, "simple_python");
    const byQuestion = new Map(
      entries
        .slice(0, 4)
        .map((e, i) => [e.question[0]![0]!.content, goldCalls(answers![i]!, e.function, "python")]),
    );
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const q = body.messages.find((m) => m.role === "user")!.content!;
        const gold = byQuestion.get(q)!;
        // The third entry answers wrongly on purpose.
        if (q === entries[2]!.question[0]![0]!.content) return "I cannot help with that.";
        return { toolCalls: toolCallsFor(gold) };
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "simple_python",
      endpoint: server.baseURL,
      model: "m",
      limit: 4,
      trials: 1,
      concurrency: 2,
    });
    expect(summary.results).toEqual([
      { id: "simple_python_0", valid: true },
      { id: "simple_python_1", valid: true },
      { id: "simple_python_2", valid: false, error_type: "ast_decoder:decoder_failed" },
      { id: "simple_python_3", valid: true },
    ]);
    const tools = server.requests[0]!.body.tools as Array<{
      function: { name: string; description: string };
    }>;
    expect(tools[0]!.function.description).toMatch(
      /Note that the provided function is in Python 3 syntax\.$/,
    );
    expect(summary.accuracy).toBe(0.75);
  });

  it("FC mode: multi-turn runs the backends for tool results and is scored by re-execution", async () => {
    const { entries, answers } = loadCategory(BFCL_DIR, "multi_turn_base");
    const e = entries[1]!; // ls(a=True) | cd, mv | cd, grep | tail
    const gt = answers![1] as string[][];
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const last = body.messages[body.messages.length - 1]!;
        if (last.role === "tool") return "done";
        const turn = body.messages.filter((m) => m.role === "user").length - 1;
        return {
          toolCalls: gt[turn]!.map((s, i) => {
            const c = parseCall(s);
            return { id: `t${turn}_${i}`, name: c.name, arguments: jsonDumps(c.kwargs) };
          }),
        };
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "multi_turn_base",
      endpoint: server.baseURL,
      model: "m",
      limit: 2,
      trials: 1,
      concurrency: 1,
    });
    expect((summary.results as Array<{ id: string; valid: boolean }>).find((r) => r.id === e.id)).toEqual({
      id: e.id,
      valid: true,
    });
    // The tool result the model saw for ls(a=True) came from the real file system backend.
    const toolMsg = server.requests
      .flatMap((r) => r.body.messages)
      .find((m) => m.role === "tool" && String(m.content).includes("current_directory_content"));
    expect(toolMsg).toBeDefined();
  });

  it("prompting mode: upstream's system prompt, Python-call replies decoded without eval", async () => {
    const server = await startServer({
      handler: () => "[calculate_triangle_area(base=10, height=5)]",
    });
    const summary = await bfclBenchRunner().run({
      variant: "simple_python",
      endpoint: server.baseURL,
      model: "m",
      limit: 2,
      trials: 1,
      concurrency: 1,
      bfclMode: "prompting",
    } as never);
    expect(summary.results).toEqual([
      { id: "simple_python_0", valid: true },
      { id: "simple_python_1", valid: false, error_type: "simple_function_checker:wrong_func_name" },
    ]);
    const system = server.requests[0]!.body.messages[0]!;
    expect(system.role).toBe("system");
    expect(system.content).toMatch(/^You are an expert in composing functions\.You are given a question/);
    expect(system.content).toContain('"name": "calculate_triangle_area"');
  });
});

describe("test-time rehearsal on multi-turn (mock OpenAI server)", () => {
  it("rehearses each turn privately, then commits real calls that the checker scores", async () => {
    const { answers } = loadCategory(BFCL_DIR, "multi_turn_base");
    const gt = answers![1] as string[][];
    const isRehearse = (body: MockChatBody) =>
      body.messages.some((m) => String(m.content ?? "").includes("Current tool to simulate"));
    const server = await startServer({
      handler: (body: MockChatBody) => {
        if (isRehearse(body)) return '<execution_result>\n{"imagined": true}\n</execution_result>';
        const last = body.messages[body.messages.length - 1]!;
        if (last.role === "tool") return "done";
        const turn = body.messages.filter((m) => m.role === "user").length - 1;
        return {
          toolCalls: gt[turn]!.map((s, i) => {
            const c = parseCall(s);
            return { id: `t${turn}_${i}`, name: c.name, arguments: jsonDumps(c.kwargs) };
          }),
        };
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "multi_turn_base",
      endpoint: server.baseURL,
      model: "m",
      limit: 2,
      trials: 1,
      concurrency: 1,
      rehearsal: "parallel:2",
    } as never);
    expect((summary.results as Array<{ id: string; valid: boolean }>)[1]).toEqual({
      id: "multi_turn_base_1",
      valid: true,
    });
    const rh = summary.rehearsal as { real_calls_during_rehearsal: number; attempts: number; n: number };
    expect(rh.n).toBe(2);
    expect(rh.real_calls_during_rehearsal).toBe(0);
    // two entries: 4 turns each, two attempts a turn
    expect(rh.attempts).toBe(16);
    expect(server.requests.filter((r) => isRehearse(r.body)).length).toBeGreaterThan(0);
  });

  it("refuses rehearsal without a model or without multi-turn categories", async () => {
    /** A rehearsed run against a model that is never reached: every refusal comes first. */
    const rehearsed = (extra: Record<string, unknown>) =>
      bfclBenchRunner().run({
        variant: "multi_turn_base",
        endpoint: "http://127.0.0.1:1/v1",
        model: "m",
        trials: 1,
        concurrency: 1,
        rehearsal: "parallel:2",
        ...extra,
      } as never);
    await expect(rehearsed({ endpoint: undefined, model: undefined, policy: "gold" })).rejects.toThrow(
      /--rehearsal needs a model/,
    );
    // BFCL's tools do not say which change state: the commit guard needs them named
    await expect(rehearsed({ guardTools: "writes" })).rejects.toThrow(
      /--guard-tools writes: BFCL's tools do not say which change state/,
    );
    // a name no multi-turn backend has would guard nothing: refused before any model call
    await expect(rehearsed({ guardTools: "rm,remove_file" })).rejects.toThrow(
      /--guard-tools: bfcl multi-turn has no tool "remove_file" \(its tools: .*\brm\b/,
    );
    await expect(rehearsed({ variant: "simple_python" })).rejects.toThrow(/multi-turn categories/);
  });
});

describe("memory (key-value backend)", () => {
  it("gold scores 100%; the checker wants the answer as a whole word", async () => {
    const run = await runBfcl({ bfclDir: BFCL_DIR, categories: ["memory_kv"], policy: { kind: "gold" } });
    expect(run.categories.memory_kv).toEqual({ accuracy: 1, total: 155, ran: true });
    expect(agenticChecker("{'answer': 'Michael', 'context': 'memory'}", ["Michael"]).valid).toBe(true);
    expect(agenticChecker("Michaela", ["Michael"])).toMatchObject({
      valid: false,
      error_type: "agentic:answer_not_found",
    });
    expect(agenticChecker("It's thirty-five.", ["35", "thirty five"]).valid).toBe(false);
    expect(agenticChecker("I am thirty five", ["35", "thirty five"]).valid).toBe(true);
  });

  it("a model fills its memory in the prerequisite conversations and answers from it (mock server)", async () => {
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const last = body.messages[body.messages.length - 1]!;
        const content = String(last.content ?? "");
        if (last.role === "tool") {
          return content.includes('"value"')
            ? `{'answer': '${JSON.parse(content).value}', 'context': 'memory'}`
            : "Noted.";
        }
        if (content.includes("My name is Michael")) {
          return {
            toolCalls: [{ name: "core_memory_add", arguments: { key: "first_name", value: "Michael" } }],
          };
        }
        if (content === "What is my first name?") {
          return { toolCalls: [{ name: "core_memory_retrieve", arguments: { key: "first_name" } }] };
        }
        return "Okay.";
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "memory_kv",
      endpoint: server.baseURL,
      model: "m",
      limit: 1,
      trials: 1,
      concurrency: 1,
    });
    expect(summary.results).toEqual([{ id: "memory_kv_0-customer-0", valid: true }]);
    // The question's system prompt shows the core memory the prerequisites left.
    const question = server.requests.find((r) =>
      r.body.messages.some((m) => m.content === "What is my first name?"),
    )!;
    expect(String(question.body.messages[0]!.content)).toContain('"first_name": "Michael"');
    expect(String(question.body.messages[0]!.content)).toContain("For your final answer to the user");
  });

  it("the recursive-summary memory: gold 100%, and its prompt shows the memory text (mock server)", async () => {
    const gold = await runBfcl({
      bfclDir: BFCL_DIR,
      categories: ["memory_rec_sum"],
      policy: { kind: "gold" },
    });
    expect(gold.categories.memory_rec_sum).toEqual({ accuracy: 1, total: 155, ran: true });
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const last = body.messages[body.messages.length - 1]!;
        const content = String(last.content ?? "");
        if (last.role === "tool") return "Noted.";
        if (content.includes("My name is Michael")) {
          return { toolCalls: [{ name: "memory_append", arguments: { text: "First name: Michael. " } }] };
        }
        if (content === "What is my first name?") {
          const system = String(body.messages[0]!.content);
          return /First name: (\w+)/.test(system)
            ? `{'answer': '${/First name: (\w+)/.exec(system)![1]}'}`
            : "I do not know";
        }
        return "Okay.";
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "memory_rec_sum",
      endpoint: server.baseURL,
      model: "m",
      limit: 1,
      trials: 1,
      concurrency: 1,
    });
    expect(summary.results).toEqual([{ id: "memory_rec_sum_0-customer-0", valid: true }]);
  });

  it("replays answers from a file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "bfcl-replay-"));
    const file = join(dir, "m.jsonl");
    writeFileSync(
      file,
      `{"id": "memory_kv_1-customer-1", "answer": "You are 35."}\n{"id": "memory_kv_2-customer-2", "answer": "Portland"}\n`,
    );
    const run = await runBfcl({
      bfclDir: BFCL_DIR,
      categories: ["memory_kv"],
      policy: { kind: "replay", lines: readBfclReplay(file) },
    });
    expect(run.results.map((r) => [r.id, r.valid])).toEqual([
      ["memory_kv_1-customer-1", true],
      ["memory_kv_2-customer-2", false],
    ]);
  });
});

describe("format sensitivity with a model (mock server)", () => {
  it("asks under each variation's system prompt and decodes each return format", async () => {
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const system = String(body.messages[0]!.content);
        return system.includes("<TOOLCALL>")
          ? "<TOOLCALL>[math.gcd(num1=40, num2=50)]</TOOLCALL>"
          : "[math.gcd(num1=40, num2=50)]";
      },
    });
    const summary = await bfclBenchRunner().run({
      variant: "format_sensitivity",
      endpoint: server.baseURL,
      model: "m",
      limit: 2,
      trials: 1,
      concurrency: 1,
      bfclMode: "prompting",
    } as never);
    expect((summary.results as Array<{ valid: boolean }>).map((r) => r.valid)).toEqual([true, true]);
    const [a, b] = server.requests.map((r) => String(r.body.messages[0]!.content));
    expect(a).toContain("# Function: math.gcd"); // Python-style docs
    expect(b).toContain('<function name="math.gcd">'); // XML docs
    await expect(
      bfclBenchRunner().run({
        variant: "format_sensitivity",
        endpoint: server.baseURL,
        model: "m",
        limit: 1,
        trials: 1,
        concurrency: 1,
      }),
    ).resolves.toMatchObject({
      not_run: { format_sensitivity: expect.stringMatching(/--bfcl-mode prompting/) },
    });
  });
});
