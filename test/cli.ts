import { spawn } from "node:child_process";

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
    const p = spawn("npx", ["tsx", "src/cli/main.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    p.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    p.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    p.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}
