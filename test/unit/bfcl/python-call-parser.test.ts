import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeAstPrompting } from "../../../src/bench/bfcl/model-handler.js";
import {
  parseCall,
  parseCallList,
  parsePythonLiteral,
  PythonSyntaxError,
} from "../../../src/envs/bfcl/python-call-parser.js";
import { newDict, pyEqual, pyRepr, PyFloat, PyTuple, type PyValue } from "../../../src/envs/bfcl/py-value.js";

describe("Python call parser", () => {
  it("reads keyword and positional arguments, both quote styles and every literal kind", () => {
    const c = parseCall(
      `sort('final_report.pdf', lines=-20, ratio=.5, big=1_000, e=2e3, t=(1,), u=(), flag=True, none=None, d={"k": [1, 'x']}, s="it's")`,
    );
    expect(c.name).toBe("sort");
    expect(c.args).toEqual(["final_report.pdf"]);
    expect(pyRepr(c.kwargs)).toBe(
      `{'lines': -20, 'ratio': 0.5, 'big': 1000, 'e': 2000.0, 't': (1,), 'u': (), 'flag': True, 'none': None, 'd': {'k': [1, 'x']}, 's': "it's"}`,
    );
  });
  it("reads a list of calls, a single call, dotted names and string escapes", () => {
    const calls = parseCallList(`[math.sqrt(x=4), f(s='a\\nb', r=r'a\\n', c='x' "y")]`);
    expect(calls.map((c) => c.name)).toEqual(["math.sqrt", "f"]);
    expect(calls[1]!.kwargs).toEqual({ s: "a\nb", r: "a\\n", c: "xy" });
    expect(parseCallList("g()")).toHaveLength(1);
    expect(parseCallList("[]")).toEqual([]);
  });
  it("reads bare names as text and nested calls as upstream's decoder does", () => {
    const c = parseCall("f(a=my_var, b=g(1, 2), c=h(x=1))");
    expect(c.kwargs.a).toBe("my_var");
    expect(c.kwargs.b).toBe("g(1, 2)");
    expect(pyRepr(c.kwargs.c!)).toBe("{'h': {'x': 1}}");
  });
  it("refuses what it would have to evaluate, with a typed error", () => {
    for (const bad of [
      "f(a=1+2)",
      "f(a=__import__('os').system('x'))[0]",
      "f(a=lambda: 1)",
      "f(a=[x for x in y])",
      "f(a=1)(b=2)",
      "f(a=1, a=2)",
      "f(a=1, 2)",
      "import os",
      "f(a='unterminated)",
      "f(a=01)",
    ]) {
      expect(() => parseCallList(bad), bad).toThrow(PythonSyntaxError);
    }
  });
  it("bounds nesting depth instead of overflowing the stack", () => {
    expect(() => parseCall(`f(a=${"[".repeat(5000)}${"]".repeat(5000)})`)).toThrow(/nesting too deep/);
  });
});

const pyValue: fc.Arbitrary<PyValue> = fc.letrec<{ v: PyValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -1e9, max: 1e9 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => new PyFloat(x)),
    fc.string({ unit: "binary" }),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.array(tie("v"), { maxLength: 3 }).map((xs) => new PyTuple(xs)),
    fc.dictionary(fc.string(), tie("v"), { maxKeys: 3 }).map((o) => Object.assign(newDict(), o)),
  ),
})).v;

describe("Python call parser: properties", () => {
  it("parses back what Python's repr writes", () => {
    fc.assert(
      fc.property(pyValue, (v) => {
        const back = parsePythonLiteral(pyRepr(v));
        return pyEqual(back, v) && pyRepr(back) === pyRepr(v);
      }),
      { numRuns: 3000 },
    );
  });
  it("parses calls built from random names and arguments", () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/),
        fc.array(pyValue, { maxLength: 3 }),
        fc.dictionary(fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/), pyValue, { maxKeys: 3 }),
        (name, args, kwargs) => {
          const text = `${name}(${[...args.map(pyRepr), ...Object.entries(kwargs).map(([k, v]) => `${k}=${pyRepr(v)}`)].join(", ")})`;
          const c = parseCall(text);
          return (
            c.name === name && pyEqual(c.args, args) && pyEqual(c.kwargs, Object.assign(newDict(), kwargs))
          );
        },
      ),
      { numRuns: 2000 },
    );
  });
  it("never crashes, hangs or runs anything on 100k generated inputs", () => {
    // Strings from a Python-heavy alphabet, plus mutations of valid calls; each must parse or
    // throw PythonSyntaxError, and the whole run must stay fast (no super-linear path).
    const alphabet = fc.constantFrom(..."f(a=1,'\"[]{}:)x.-+_ \\n\t0e9rbTrueNone#...".split(""));
    const noisy = fc.array(alphabet, { maxLength: 40 }).map((cs) => cs.join(""));
    const mutated = fc
      .tuple(
        fc.constantFrom("f(a=1, b='x')", "[g(x=[1, 2]), h(y={'k': (1,)})]", "cd(folder='..')"),
        fc.nat(),
        fc.string({ maxLength: 3 }),
      )
      .map(([s, at, ins]) => s.slice(0, at % (s.length + 1)) + ins + s.slice(at % (s.length + 1)));
    const start = Date.now();
    fc.assert(
      fc.property(fc.oneof(noisy, mutated, fc.string({ unit: "grapheme", maxLength: 30 })), (s) => {
        try {
          parseCallList(s);
        } catch (e) {
          if (!(e instanceof PythonSyntaxError)) throw e;
        }
      }),
      { numRuns: 100_000 },
    );
    expect(Date.now() - start).toBeLessThan(60_000);
  });
});

describe("prompting-mode decoding: outputs recorded from upstream's default_decode_ast_prompting", () => {
  // Each text was decoded by upstream's decoder (commit 6ea5797); null = it raised.
  const cases = JSON.parse(
    readFileSync(new URL("./upstream-decodes.json", import.meta.url), "utf8"),
  ) as Array<{
    text: string;
    upstream: string | null;
  }>;
  for (const c of cases) {
    it(`decodes ${JSON.stringify(c.text).slice(0, 70)} as upstream does`, () => {
      const r = decodeAstPrompting(c.text);
      expect(Array.isArray(r) ? pyRepr(r) : null).toBe(c.upstream);
    });
  }
});
