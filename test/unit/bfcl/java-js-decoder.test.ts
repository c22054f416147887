import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { bfclBenchRunner } from "../../../src/bench/bfcl/bench-runner.js";
import { evaluateAst, isDecodeFailure } from "../../../src/bench/bfcl/evaluate-single-turn.js";
import { loadCategory, type BfclAnswer, type BfclEntry } from "../../../src/bench/bfcl/load.js";
import { decodeJavaJsPrompting } from "../../../src/bench/bfcl/model-handler.js";
import { toPlain } from "../../../src/envs/bfcl/py-value.js";
import type { MockChatBody } from "../../../src/testing/index.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";
import { BFCL_DIR } from "./data.js";

interface Recorded {
  lang: "java" | "javascript";
  text: string;
  /** The entry whose gold answer the reply renders (absent for probes). */
  id?: string;
  /** Upstream eval_runner's verdict on the reply (decode, format check, ast_checker). */
  verdict?: { valid: boolean; error_type?: string };
  /** Upstream's decode (`null`: it returned None), or the exception it raised. */
  decoded?: unknown;
  error?: string;
}

/** Upstream's tree-sitter decodes of rendered gold answers and probes (results only). */
const recorded = JSON.parse(
  readFileSync(new URL("./upstream-java-js-decodes.json", import.meta.url), "utf8"),
) as { cases: Recorded[] };

/** Replies upstream's tree-sitter recovers from and our parser does not follow (docs/bfcl.md). */
const KNOWN_DIFFERENCES = new Set(["java:Obj.<T>f(a=1);", "javascript:Obj.f(,a=1);"]);

describe("Java and JavaScript prompting-mode decoders", () => {
  it("decode every recorded reply as upstream's tree-sitter decoders do", () => {
    let compared = 0;
    for (const c of recorded.cases) {
      if (KNOWN_DIFFERENCES.has(`${c.lang}:${c.text}`)) continue;
      const got = decodeJavaJsPrompting(c.text, c.lang);
      if (c.error !== undefined) {
        expect(isDecodeFailure(got), `${c.lang} ${JSON.stringify(c.text)} should fail`).toBe(true);
      } else {
        expect(toPlain(got as never), `${c.lang} ${JSON.stringify(c.text)}`).toEqual(c.decoded);
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(1500);
  });

  it("scores each rendered gold reply as upstream's eval_runner does", () => {
    const byId = new Map<string, { entry: BfclEntry; answer: BfclAnswer }>();
    for (const category of ["simple_java", "simple_javascript"] as const) {
      const data = loadCategory(BFCL_DIR, category);
      data.entries.forEach((entry, i) => byId.set(entry.id, { entry, answer: data.answers![i]! }));
    }
    const scored = recorded.cases.filter((c) => c.verdict !== undefined);
    for (const c of scored) {
      const { entry, answer } = byId.get(c.id!)!;
      const v = evaluateAst(entry, answer, decodeJavaJsPrompting(c.text, c.lang));
      expect({ valid: v.valid, error_type: v.error_type }, `${c.id} ${JSON.stringify(c.text)}`).toEqual({
        valid: c.verdict!.valid,
        error_type: c.verdict!.error_type,
      });
    }
    // Both outcomes are represented, so a checker that always passes or always fails would show.
    expect(scored.filter((c) => c.verdict!.valid).length).toBeGreaterThan(300);
    expect(scored.filter((c) => !c.verdict!.valid).length).toBeGreaterThan(300);
  });

  it("keeps upstream's quirks: byte-offset cuts, dropped class bodies, ignored positional literals", () => {
    // The Java decoder cuts text at UTF-8 byte offsets counted in characters.
    expect(toPlain(decodeJavaJsPrompting('Obj.f(a="é x", b=1);', "java") as never)).toEqual([
      { "Obj.f": { a: 'é x"', "=": ")" } },
    ]);
    expect(
      toPlain(
        decodeJavaJsPrompting('Obj.f(m=new HashMap<String, Object>() {{ put("a", 1); }});', "java") as never,
      ),
    ).toEqual([{ "Obj.f": { m: "new HashMap<String,Object>()" } }]);
    expect(toPlain(decodeJavaJsPrompting("f(5, x, false, s='q')", "javascript") as never)).toEqual([
      { f: { None: "x", s: "q" } },
    ]);
    // Two bare names (or a name and `true`): upstream refuses the repeated key.
    expect(isDecodeFailure(decodeJavaJsPrompting("f(x, true)", "javascript"))).toBe(true);
    // A short unqualified Java call without `;` is an ERROR to tree-sitter, a longer one is not.
    expect(isDecodeFailure(decodeJavaJsPrompting("foo(a=1)", "java"))).toBe(true);
    expect(isDecodeFailure(decodeJavaJsPrompting("foo(a=12345)", "java"))).toBe(false);
    // No call statement: JavaScript returns None, Java an empty dict (both then fail the format check).
    expect(decodeJavaJsPrompting("x = f(a=1)", "javascript")).toBeNull();
    expect(toPlain(decodeJavaJsPrompting("int x = 5;", "java") as never)).toEqual({});
  });

  it("never runs the text: anything outside the subset is a decode failure", () => {
    for (const text of ["f(a=require('child_process'))", "f(a=(() => process.exit(1))())"]) {
      const got = decodeJavaJsPrompting(text, "javascript");
      expect(isDecodeFailure(got) || Array.isArray(got)).toBe(true);
    }
    expect(isDecodeFailure(decodeJavaJsPrompting("class A { }", "javascript"))).toBe(true);
    expect(isDecodeFailure(decodeJavaJsPrompting('Obj.f(a="unterminated);', "java"))).toBe(true);
  });
});

describe("prompting mode on the Java and JavaScript categories (mock server)", () => {
  const startServer = mockServersClosedAfterEach();

  it("decodes the replies and scores them with the language's type rules", async () => {
    const replies: Record<string, string> = {
      // simple_java_0, then a reply without `;` that tree-sitter still accepts (qualified, long).
      mapController: "GeometryPresentation.createPresentation(controller=mapController, parent=mapArea);",
      Customers:
        'SQLCompletionAnalyzer.makeProposalsFromObject(object=Customers, useShortName=true, params=new HashMap<String, Object>() {{ put("limit", 50); }})',
      userInputField: "```javascript\nvalidateUserInput(inputField='userInputField', isComplete=true)\n```",
      "data-active": "getActiveDataEntries(listElement=listElement, attribute='data-active', value=true",
    };
    const server = await startServer({
      handler: (body: MockChatBody) => {
        const q = String(body.messages[body.messages.length - 1]!.content);
        return Object.entries(replies).find(([k]) => q.includes(k))?.[1] ?? "I cannot help.";
      },
    });
    const run = async (variant: string) =>
      (
        await bfclBenchRunner().run({
          variant,
          endpoint: server.baseURL,
          model: "m",
          limit: 2,
          trials: 1,
          concurrency: 1,
          bfclMode: "prompting",
        } as never)
      ).results;
    const java = await run("simple_java");
    expect(java[0]).toEqual({ id: "simple_java_0", valid: true });
    // Decoded, but the HashMap's class body is dropped by the decoder, so the value differs.
    expect(java[1]).toMatchObject({ id: "simple_java_1", valid: false });
    expect((java[1] as { error_type: string }).error_type).not.toMatch(/decoder/);
    expect(await run("simple_javascript")).toEqual([
      { id: "simple_javascript_0", valid: true },
      // The missing `)` is a syntax error.
      { id: "simple_javascript_1", valid: false, error_type: "ast_decoder:decoder_failed" },
    ]);
    expect(String(server.requests[0]!.body.messages[0]!.content)).toContain("Java 8 SDK syntax");
  });
});
