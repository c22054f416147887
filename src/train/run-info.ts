import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** What a run directory records about how it was made, so that it can be read and repeated. */
export interface RunInfo {
  envace_version: string | null;
  /** The source checkout's commit (null outside a git checkout, e.g. an installed package). */
  git_commit: string | null;
  /** True when the checkout had uncommitted changes: the commit alone does not reproduce it. */
  git_dirty: boolean | null;
  started_at: string;
  argv: string[];
}

// src/train/ and dist/train/ are both two levels below the package root.
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function git(args: string[]): string | null {
  try {
    return execFileSync("git", args, {
      cwd: packageRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    return null;
  }
}

export function runInfo(argv: string[] = process.argv.slice(2)): RunInfo {
  let version: string | null = null;
  try {
    version =
      (JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { version?: string }).version ??
      null;
  } catch {
    version = null;
  }
  const commit = git(["rev-parse", "HEAD"]);
  const status = commit === null ? null : git(["status", "--porcelain", "--untracked-files=no"]);
  return {
    envace_version: version,
    git_commit: commit,
    git_dirty: status === null ? null : status !== "",
    started_at: new Date().toISOString(),
    argv,
  };
}

/**
 * Writes `config.resolved.json` (the config after defaults and path resolution: what actually ran)
 * and appends this invocation to `runs.jsonl` (a resumed run adds a line, so every start is kept).
 */
export function writeRunInfo(outDir: string, config: unknown, info: RunInfo = runInfo()): void {
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, "config.resolved.json"), JSON.stringify(config, null, 2) + "\n");
  writeFileSync(join(outDir, "runs.jsonl"), JSON.stringify(info) + "\n", { flag: "a" });
}
