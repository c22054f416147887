import { spawn, type ChildProcessByStdio } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { isAlive, pidsMentioning, waitFor } from "../processes.js";
import { writeTinyCorpus } from "./corpus.js";

function workerPids(corpus: string): number[] {
  return pidsMentioning(corpus).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("envace_worker");
    } catch {
      return false;
    }
  });
}

/** `node` arguments of `envace worker serve` on a tiny model (run from the sources with tsx). */
const serveTiny = (corpus: string): string[] => [
  "--import",
  "tsx",
  "src/cli/main.ts",
  "worker",
  "serve",
  "--init",
  "tiny",
  "--corpus",
  corpus,
];

/** Runs the CLI until it prints its listening line; returns the URL and the output so far. */
async function serve(cli: ChildProcessByStdio<null, Readable, Readable>) {
  const out = { stdout: "", stderr: "" };
  cli.stdout.on("data", (d: Buffer) => (out.stdout += d.toString()));
  cli.stderr.on("data", (d: Buffer) => (out.stderr += d.toString()));
  const closed = new Promise<number | null>((r) => cli.on("close", (code) => r(code)));
  await waitFor(
    () => /listening on http:\/\/127\.0\.0\.1:\d+\n/.test(out.stdout) || cli.exitCode !== null,
    "the listening line",
    180_000,
  );
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out.stdout)?.[1];
  expect(url, out.stderr).toBeDefined();
  const health = (await (await fetch(`${url}/health`)).json()) as { status: string };
  expect(health.status).toBe("ok");
  return { url: url!, out, closed };
}

describe("envace worker serve", () => {
  it("prints the listening line, serves, and exits 0 on SIGTERM leaving no worker behind", async () => {
    const { corpus } = writeTinyCorpus();
    const cli = spawn(process.execPath, [...serveTiny(corpus), "--port", "0", "--quiet"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const { url, out, closed } = await serve(cli);
    const pids = workerPids(corpus);
    expect(pids).toHaveLength(1);
    cli.kill("SIGTERM");
    expect(await closed).toBe(0);
    expect(out.stderr).toContain("SIGTERM, stopping the worker");
    expect(isAlive(pids[0]!)).toBe(false);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  });

  it("run as `npx tsx …`, stops everything when its process group gets SIGINT (Ctrl-C)", async () => {
    const { corpus } = writeTinyCorpus();
    const cli = spawn(
      "npx",
      ["tsx", "src/cli/main.ts", "worker", "serve", "--init", "tiny", "--corpus", corpus, "--port", "0"],
      {
        stdio: ["ignore", "pipe", "pipe"],
        detached: true, // its own process group, signalled as a terminal would
      },
    );
    const { out, closed } = await serve(cli);
    expect(out.stderr).toContain("[worker] listening on"); // the worker's log is echoed to stderr
    const pids = workerPids(corpus);
    expect(pids).toHaveLength(1);
    process.kill(-cli.pid!, "SIGINT");
    await closed;
    // npx, tsx, the CLI and the worker: all gone
    await waitFor(() => pidsMentioning(corpus).length === 0, "every process of the CLI to exit", 15_000);
    expect(out.stderr).toContain("stopping the worker");
  });

  it("--nproc 2 --parallel fsdp shards the worker over two ranks; an unknown mode is refused", async () => {
    const { corpus } = writeTinyCorpus();
    const args = serveTiny(corpus);
    const bad = spawn(process.execPath, [...args, "--nproc", "2", "--parallel", "zero3"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    bad.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    expect(await new Promise<number | null>((r) => bad.on("close", (c) => r(c)))).toBe(1);
    expect(stderr).toMatch(/--parallel.*zero3.*(auto, ddp, fsdp|"auto", "ddp", "fsdp")/s);

    const cli = spawn(
      process.execPath,
      [...args, "--port", "0", "--quiet", "--nproc", "2", "--parallel", "fsdp", "--", "--device", "cpu"],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const { url, closed } = await serve(cli);
    const health = (await (await fetch(`${url}/health`)).json()) as Record<string, unknown>;
    expect(health).toMatchObject({ world_size: 2, parallel: "fsdp" });
    cli.kill("SIGTERM");
    expect(await closed).toBe(0);
    await waitFor(() => pidsMentioning(corpus).length === 0, "the ranks to exit", 15_000);
  });

  it("refuses contradictory model flags with INVALID_CONFIG", async () => {
    const cli = spawn(
      process.execPath,
      ["--import", "tsx", "src/cli/main.ts", "worker", "serve", "--model", "/x", "--init", "tiny"],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    cli.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => cli.on("close", (c) => r(c)));
    expect(code).toBe(1);
    expect(stderr).toContain("INVALID_CONFIG");
  });
});
