import { spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startWorker, type StartWorkerOptions, type WorkerProcess } from "../../../src/engines/index.js";
import { isEnvaceError } from "../../../src/core/errors.js";
import { writeFakeWorker } from "./fake-worker.js";
import { isAlive, waitFor } from "../processes.js";

// The supervisor against a stdlib stand-in for the worker: fast, and able to misbehave on cue.
const python = "python3";
const running: WorkerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((w) => w.stop()));
});

function options(extraEnv: Record<string, string> = {}): StartWorkerOptions & { log: string } {
  const fake = writeFakeWorker();
  return {
    model: fake.model,
    python,
    env: { PYTHONPATH: fake.pythonPath, FAKE_LOG: fake.log, ...extraEnv },
    startupTimeoutMs: 20_000,
    log: fake.log,
  };
}

describe("startWorker (supervisor)", () => {
  it("starts, restarts after kill -9 on the same URL, resumes the checkpoint, and stops without leftovers", async () => {
    const opts = options();
    const lines: string[] = [];
    const w = await startWorker({
      ...opts,
      restartOnCrash: true,
      maxRestarts: 2,
      onLog: (l) => lines.push(l),
    });
    running.push(w);
    expect((await w.client.health()).step).toBe(0);
    expect(lines.some((l) => l.startsWith("listening on"))).toBe(true);
    w.setResumeCheckpoint("/ckpt/step-7");
    const events: unknown[] = [];
    w.on("restart", (info) => events.push(info));
    const first = w.pid;
    const url = w.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/); // the port the worker picked
    process.kill(first, "SIGKILL");
    await waitFor(() => events.length === 1, "a restart");
    await w.waitReady();
    expect(w.pid).not.toBe(first);
    expect(w.url).toBe(url);
    expect(w.restarts).toBe(1);
    expect(readFileSync(opts.log, "utf8")).toBe("/ckpt/step-7\n");
    expect((await w.client.health()).step).toBe(42);
    const second = w.pid;
    await w.stop();
    expect(isAlive(second)).toBe(false);
  });

  it("gives up after maxRestarts and reports exit; calls then fail with WORKER_UNAVAILABLE", async () => {
    const opts = options();
    const w = await startWorker({ ...opts, restartOnCrash: true, maxRestarts: 1 });
    running.push(w);
    const exits: unknown[][] = [];
    w.on("exit", (...a) => exits.push(a));
    process.kill(w.pid, "SIGKILL");
    await waitFor(() => w.restarts === 1, "the restart");
    await w.waitReady();
    process.kill(w.pid, "SIGKILL");
    await waitFor(() => exits.length === 1, "the exit event");
    expect(exits[0]).toEqual([null, "SIGKILL"]);
    const err = await w.client.health().catch((e: unknown) => e);
    expect(isEnvaceError(err, "WORKER_UNAVAILABLE")).toBe(true);
  });

  it("fails startup with WORKER_UNAVAILABLE and the worker's last output when it exits at once", async () => {
    const err = await startWorker({ ...options({ FAKE_MODE: "crash" }) }).catch((e: unknown) => e);
    expect(isEnvaceError(err, "WORKER_UNAVAILABLE")).toBe(true);
    expect((err as Error).message).toContain("exit code 3");
    expect((err as Error).message).toContain("crashing on purpose");
  });

  it("refuses to start without exactly one of model/init", async () => {
    const err = await startWorker({ python }).catch((e: unknown) => e);
    expect(isEnvaceError(err, "INVALID_CONFIG")).toBe(true);
  });

  it("refuses a model path that is not a model directory in one line, before starting anything", async () => {
    const started: string[] = [];
    for (const model of ["/no/such/model-dir", "Qwen/Qwen3-0.6B", join(options().log, "..")]) {
      const err = await startWorker({ model, python, onLog: (l) => started.push(l) }).catch(
        (e: unknown) => e,
      );
      expect(isEnvaceError(err, "INVALID_CONFIG")).toBe(true);
      expect((err as Error).message).toMatch(/no such directory|no config\.json/);
      expect((err as Error).message).not.toContain("\n");
    }
    expect(started).toEqual([]);
  });

  it("leaves no orphan when the parent Node process is killed with SIGKILL", async () => {
    const opts = options();
    const script = join(opts.env!.PYTHONPATH!, "parent.mts");
    const src = new URL("../../../src/engines/index.ts", import.meta.url).pathname;
    writeFileSync(
      script,
      `import { startWorker } from ${JSON.stringify(src)};
const w = await startWorker(${JSON.stringify({ model: opts.model, python, env: opts.env })});
console.log("PID " + w.pid);
setInterval(() => {}, 1000);
`,
    );
    const parent = spawn(process.execPath, ["--import", "tsx", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    parent.stdout.on("data", (d: Buffer) => (out += d.toString()));
    await waitFor(() => /PID \d+/.test(out), "the parent to start its worker", 30_000);
    const workerPid = Number(/PID (\d+)/.exec(out)![1]);
    expect(isAlive(workerPid)).toBe(true);
    parent.kill("SIGKILL");
    await waitFor(() => !isAlive(workerPid), "the orphaned worker to die", 10_000);
    expect(existsSync(script)).toBe(true);
  });
});
