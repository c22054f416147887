import fc from "fast-check";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { isEnvaceError } from "../../../src/core/errors.js";
import { parseYamlSafe } from "../../../src/core/safe-yaml.js";
import { growthRatio } from "./growth.js";

const refused = (text: string): boolean => {
  try {
    parseYamlSafe(text, "test.yaml");
    return false;
  } catch (e) {
    return isEnvaceError(e, "INVALID_CONFIG");
  }
};

describe("parseYamlSafe", () => {
  it("reads what yaml reads for plain configs and any JSON", () => {
    const config =
      "mode: rehearsal\nworker:\n  init: {corpus: c.txt, size: xs}\nlr: 1.0e-5\nroles: [act, rehearse]\n";
    expect(parseYamlSafe(config, "c.yaml")).toEqual(parse(config));
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        const text = JSON.stringify(v);
        expect(parseYamlSafe(text, "j.json")).toEqual(parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it("refuses the inputs that hung or blew up the plain parser, at once and with INVALID_CONFIG", () => {
    expect(refused("? \n".repeat(400))).toBe(true);
    expect(refused("? ".repeat(400))).toBe(true);
    expect(refused("a: {b: ? c}\n")).toBe(true);
    expect(refused("{a: 1}: x\n")).toBe(true);
    expect(refused("a: !!binary aGk=\n")).toBe(true);
    expect(refused("[[[1]]] : x\n")).toBe(true);
    expect(refused("x: " + "[".repeat(100) + "]".repeat(100))).toBe(true);
    const laughs = ["a: &a [x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++)
      laughs.push(
        `${"b" + i}: &${"b" + i} [${Array(9)
          .fill(i === 1 ? "*a" : "*b" + (i - 1))
          .join(", ")}]`,
      );
    expect(refused(laughs.join("\n"))).toBe(true);
    expect(refused("k: v\n".repeat(60_000))).toBe(true); // over the size limit
    expect(refused("a: [1, 2\n")).toBe(true);
    expect(refused("a: 1\na: 2\n")).toBe(true); // duplicate keys are a mistake in a config
  });

  it("a question mark inside values is still fine", () => {
    expect(parseYamlSafe("q: is it? yes\nr: '?'\ns: \"? x\"\n", "q.yaml")).toEqual({
      q: "is it? yes",
      r: "?",
      s: "? x",
    });
  });

  it("reads a document at the size limit; one past it is refused before any parsing", () => {
    // the yaml composer itself is superlinear in mapping entries (16k keys: ~5 s): the cap bounds it
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `k${i}: [v, {w: ${i}}]`).join("\n");
    expect(Object.keys(parseYamlSafe(lines(900), "big.yaml") as object)).toHaveLength(900); // 1800 pairs
    expect(refused(lines(1100))).toBe(true); // over 2000 pairs
    expect(refused("k: v\n".repeat(20_000))).toBe(true); // over 64 KiB
    expect(growthRatio(refused, (k) => lines(k * 1000), 4, 8, 3)).toBeLessThan(4); // refused by length alone
  });

  it("refuses hostile inputs in time linear in their length", () => {
    expect(growthRatio(refused, (n) => "a:\n" + "? ".repeat(n), 2_000)).toBeLessThan(24);
    // thousands of syntax errors on one line (took 13 s for 60 kB before the CST check)
    // 4× the input (15k → 60k characters, under the size cap): linear ≈ 4, quadratic ≈ 16
    const garbled = (n: number) => '{"name": "f", "arguments": {}}'.repeat(n);
    expect(growthRatio(refused, garbled, 500, 4, 5)).toBeLessThan(10);
    expect(growthRatio(refused, (n) => ":\n\n".repeat(n), 5_000, 4, 5)).toBeLessThan(10);
  });
});
