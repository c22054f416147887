import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The benchmark data directory: the `--data` option, else env ENVACE_DATA_DIR, else the shared
 * read-only copy next to the checkout (`<repo>/../shared/data`) when it exists, else `./data`
 * (where `envace data fetch` puts it by default). Returned as an absolute path.
 */
export function resolveDataDir(option?: string): string {
  if (option) return resolve(option);
  const fromEnv = process.env.ENVACE_DATA_DIR;
  if (fromEnv) return resolve(fromEnv);
  const repo = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
  if (repo) {
    const shared = join(repo, "..", "shared", "data");
    if (existsSync(shared)) return shared;
  }
  return resolve("data");
}

/** The nearest folder above `start` whose package.json is envace's (works from src/ and dist/). */
function findPackageRoot(start: string): string | null {
  for (let dir = start; ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, "utf8")) as { name?: string }).name === "envace") return dir;
      } catch {
        // an unreadable package.json is not ours; keep climbing
      }
    }
    if (dirname(dir) === dir) return null;
  }
}
