import { execFile } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "../../..");

/** Runs a bench runner as `npm run bench:*` does (tsx), returning its exit code, stdout and stderr. */
export async function bench(script: string, args: string[]) {
  try {
    const { stdout, stderr } = await run("npx", ["tsx", join("bench", script), ...args], {
      cwd: root,
      timeout: 300_000,
    });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: err.code ?? -1, stdout: err.stdout ?? "", stderr: err.stderr ?? "" };
  }
}
