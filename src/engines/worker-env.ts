import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { EnvaceError } from "../core/errors.js";

/**
 * The package root (where `worker/` and `scripts/` live), found by walking up from this file so
 * that it works from `src/` under tsx and from `dist/` after a build.
 */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (
      existsSync(join(dir, "worker", "pyproject.toml")) &&
      existsSync(join(dir, "scripts", "setup-worker.mjs"))
    )
      return dir;
    const up = dirname(dir);
    if (up === dir)
      throw new EnvaceError(
        "WORKER_UNAVAILABLE",
        "cannot find the envace package root (worker/pyproject.toml)",
      );
    dir = up;
  }
}

/** The worker's Python: `$ENVACE_VENV/bin/python`, else `<package>/.venv/bin/python`. */
export function defaultWorkerPython(): string {
  const venv = process.env.ENVACE_VENV ?? join(packageRoot(), ".venv");
  return resolve(venv, "bin", "python");
}

/**
 * Runs `node scripts/setup-worker.mjs`: creates `.venv` and installs the worker on first use (it
 * says so on stderr), and is a quick no-op afterwards.
 */
export async function ensureWorkerEnv(opts: { quiet?: boolean } = {}): Promise<void> {
  const root = packageRoot();
  const args = [join(root, "scripts", "setup-worker.mjs"), ...(opts.quiet ? ["--quiet"] : [])];
  const code = await new Promise<number | null>((done, fail) => {
    // stdout goes to our stderr too: a CLI's stdout stays machine-readable
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ["ignore", process.stderr, process.stderr],
    });
    child.on("error", fail);
    child.on("exit", (c) => done(c));
  });
  if (code !== 0)
    throw new EnvaceError(
      "WORKER_UNAVAILABLE",
      `setting up the worker environment failed (exit ${code}); run \`npm run setup:worker\``,
    );
}
