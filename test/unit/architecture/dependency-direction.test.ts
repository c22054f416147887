import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * Dependencies point down (ARCHITECTURE.md, "Layout"): the training library receives task sources
 * and gold runs through registries instead of importing the toolworld demo domains, test-time
 * rehearsal knows no benchmark (benchmarks use it), and environments know nothing of training.
 * Each rule lists the folder it scans and the folders its files must not import.
 */
const src = resolve(import.meta.dirname, "../../../src");

const RULES: Array<{ from: string; banned: string[]; why: string }> = [
  {
    from: "train",
    banned: ["envs/toolworld", "demo"],
    why: "task sources and gold runs come through src/envs/*-registry.ts",
  },
  { from: "testtime", banned: ["bench"], why: "benchmarks use test-time rehearsal, not the reverse" },
  { from: "envs", banned: ["train", "demo", "testtime", "bench"], why: "environments know no training" },
];

/** Module specifiers of static imports, re-exports and dynamic `import()` in a source text. */
function importSpecifiers(text: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^"';]*?\bfrom\s*["']([^"']+)["']/g,
    /\bimport\s*["']([^"']+)["']/g,
    /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of text.matchAll(re)) out.push(m[1]!);
  return out;
}

/** Where a relative specifier lands, as a path under src/ ("envs/toolworld/index.js"); null otherwise. */
function target(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  return relative(src, resolve(dirname(file), spec))
    .split("\\")
    .join("/");
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** "file → import" for each banned import in a folder of src/. */
function violations(rule: (typeof RULES)[number]): string[] {
  const out: string[] = [];
  for (const file of sourceFiles(join(src, rule.from))) {
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      const to = target(file, spec);
      if (to !== null && rule.banned.some((b) => to === b || to.startsWith(`${b}/`))) {
        out.push(`${relative(src, file)} → ${spec}`);
      }
    }
  }
  return out;
}

describe("dependency direction", () => {
  it.each(RULES.map((r) => [r.from, r.banned.join(", "), r] as const))(
    "src/%s imports none of %s",
    (_from, _banned, rule) => {
      expect(sourceFiles(join(src, rule.from)).length).toBeGreaterThan(0);
      expect(violations(rule), rule.why).toEqual([]);
    },
  );

  it("the scanner sees every form of import (so the rules above can fail)", () => {
    const text = [
      'import { a } from "../envs/toolworld/index.js";',
      'import type {\n  B,\n  C,\n} from "../bench/tau2/agent.js";',
      'export { d } from "../demo/data.js";',
      'export * as e from "./e.js";',
      'import "../envs/toolworld/register.js";',
      'const f = await import("../bench/registry.js");',
      'import { z } from "zod";',
    ].join("\n");
    expect(importSpecifiers(text).sort()).toEqual(
      [
        "../envs/toolworld/index.js",
        "../bench/tau2/agent.js",
        "../demo/data.js",
        "./e.js",
        "../envs/toolworld/register.js",
        "../bench/registry.js",
        "zod",
      ].sort(),
    );
    const file = join(src, "train", "x.ts");
    expect(target(file, "../envs/toolworld/index.js")).toBe("envs/toolworld/index.js");
    expect(target(file, "./loop.js")).toBe("train/loop.js");
    expect(target(file, "zod")).toBeNull();
  });
});
