import { execFile, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

/** The repository root: every `envace` run below starts there (the CLI resolves paths from it). */
export const REPO_ROOT = join(import.meta.dirname, "..");

/** The command line that runs `envace ARGS…` from source. */
const ENVACE = ["tsx", "src/cli/main.ts"];

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `envace ARGS…` from source without blocking this process, so that mock servers started by
 * the test can answer the CLI's requests (spawnSync would hold the event loop they run on).
 */
export function envaceAsync(...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    const p = spawn("npx", [...ENVACE, ...args], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

const execFileAsync = promisify(execFile);

/**
 * Runs `envace ARGS…` as `execFile` does: resolves with stdout and stderr on exit 0, rejects with an
 * error carrying `code`, `stdout` and `stderr` otherwise (for `rejects.toMatchObject`). Does not block
 * this process either.
 */
export function envaceExec(
  args: readonly string[],
  opts: { env?: NodeJS.ProcessEnv; timeout?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return execFileAsync("npx", [...ENVACE, ...args], { cwd: REPO_ROOT, maxBuffer: 64 << 20, ...opts });
}

/** Runs `envace ARGS…` and waits, blocking: for tests with no server of their own in this process. */
export function envaceSync(args: readonly string[], opts: { timeout?: number } = {}): CliResult {
  const r = spawnSync("npx", [...ENVACE, ...args], { cwd: REPO_ROOT, encoding: "utf8", ...opts });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
