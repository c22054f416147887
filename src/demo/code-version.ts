import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { packageRoot } from "../engines/index.js";

let cached: string | undefined;

/**
 * A fingerprint of the code a demo run executes: the package's own code as it runs (`dist/` after
 * a build, `src/` under tsx) and the worker's Python package. Why: a kept arm result is reused
 * only when the code that would make it again is the code that made it; after an upgrade or a
 * local change the arm is run again instead of one table mixing figures of two versions. Computed
 * once a process (about 10 ms for ~700 files).
 */
export function codeVersion(): string {
  if (cached !== undefined) return cached;
  const root = packageRoot();
  // the first folder of this file under the root: `dist` or `src`
  const codeDir = relative(root, dirname(fileURLToPath(import.meta.url))).split(sep)[0] ?? "src";
  cached = codeFingerprint(root, [codeDir, join("worker", "envace_worker")]);
  return cached;
}

/** The hash of every code file's path (relative to `root`) and bytes under the folders `dirs`. */
export function codeFingerprint(root: string, dirs: readonly string[]): string {
  const hash = createHash("sha256");
  for (const dir of dirs) {
    for (const file of codeFiles(join(root, dir))) {
      hash.update(relative(root, file)).update("\0").update(readFileSync(file)).update("\0");
    }
  }
  return hash.digest("hex").slice(0, 16);
}

/** The code files under `dir` (not source maps, declarations or bytecode), in a fixed order. */
function codeFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "__pycache__") out.push(...codeFiles(path));
    } else if (/\.(js|ts|py)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      out.push(path);
    }
  }
  return out;
}
