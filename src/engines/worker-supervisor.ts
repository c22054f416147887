import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { delimiter, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { EnvaceError } from "../core/errors.js";
import { WORKER_API_KEY_ENV, WorkerClient } from "./worker-client.js";
import { defaultWorkerPython, ensureWorkerEnv, packageRoot } from "./worker-env.js";
import { WORKER_BOOTSTRAP, workerServeArgs, type WorkerModelOptions } from "./worker-args.js";
import { sleep } from "./backoff.js";

export interface StartWorkerOptions extends WorkerModelOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /**
   * 0 or absent: the worker binds a free port and prints `listening on http://H:N`, which is how we
   * learn it (no race with other processes); restarts reuse that port, so the URL stays valid.
   */
  port?: number;
  /** Default `$ENVACE_VENV/bin/python` or `<package>/.venv/bin/python` (created on first use). */
  python?: string;
  /**
   * Data-parallel processes (default 1). Above 1 the worker runs under torchrun: gloo on CPU,
   * NCCL on GPU; rank 0 serves HTTP; `parallel` picks ddp or fsdp.
   */
  nproc?: number;
  /** Extra environment variables for the worker. */
  env?: Record<string, string>;
  /**
   * The bearer token the worker will require (every endpoint but `/health`); default a fresh random
   * one. It reaches the worker through its environment, never its command line.
   */
  apiKey?: string;
  /**
   * The directory `save`/`load` paths must stay inside (default: the current directory). Pass the
   * run directory: a path outside it is refused by the worker.
   */
  checkpointRoot?: string;
  /** Extra arguments passed to `envace_worker serve`. */
  extraArgs?: string[];
  /** Start the worker again when it dies unexpectedly (default false). */
  restartOnCrash?: boolean;
  /** Restarts allowed over the supervisor's life (default 3). */
  maxRestarts?: number;
  /** Each line the worker prints (stdout and stderr). */
  onLog?: (line: string) => void;
  /** How long to wait for `/health` after a start (default 180 s: a tiny init trains a tokenizer). */
  startupTimeoutMs?: number;
  /** Time between SIGTERM and SIGKILL on stop (default 5 s). */
  stopGraceMs?: number;
}

export interface WorkerRestartInfo {
  restarts: number;
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface WorkerProcess {
  /** `http://host:port` (no `/v1`). */
  readonly url: string;
  /** The worker's bearer token: give it to any other client of `url` (`client` already has it). */
  readonly apiKey: string;
  readonly client: WorkerClient;
  /** The current worker process's pid (changes on restart). */
  readonly pid: number;
  readonly restarts: number;
  /**
   * A checkpoint (written by `client.save`) that a restarted worker loads, weights and optimizer,
   * before it counts as ready again. Call it after each save; `undefined` clears it.
   */
  setResumeCheckpoint(path: string | undefined): void;
  /** Resolves once the worker is healthy (after a restart: and resumed); rejects if it gave up. */
  waitReady(): Promise<void>;
  /**
   * After a failed call: resolves once the worker answers `/health` again. A request can fail
   * before this process has seen the child exit, when `waitReady()` still holds the old promise;
   * this polls until the restart has begun and finished. Rejects when the worker is gone for good
   * or does not answer within `timeoutMs` (default 5 minutes).
   */
  waitRecovered(timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after the grace period; resolves when the process is gone. Idempotent. */
  stop(): Promise<void>;
  /** "restart": (info: WorkerRestartInfo). "exit": (code, signal), once the worker is gone for good. */
  on(event: "restart" | "exit", cb: (...a: unknown[]) => void): void;
}

/**
 * Starts the Python worker as a child process and waits until `/health` answers. With
 * `restartOnCrash`, an unexpected exit starts it again on the same port (up to `maxRestarts`);
 * if a resume checkpoint was registered, the new worker loads it before `waitReady()` resolves.
 */
export async function startWorker(opts: StartWorkerOptions): Promise<WorkerProcess> {
  const host = opts.host ?? "127.0.0.1";
  const port = opts.port && opts.port > 0 ? opts.port : 0;
  workerServeArgs({ ...opts, host, port }); // validates the model options before anything starts
  if (opts.model !== undefined) checkModelDir(opts.model);
  const checkpointRoot = resolve(opts.checkpointRoot ?? process.cwd());
  mkdirSync(checkpointRoot, { recursive: true }); // the run directory may not exist yet
  let python = opts.python;
  if (python === undefined) {
    python = defaultWorkerPython();
    if (!existsSync(python)) await ensureWorkerEnv();
  }
  const sup = new Supervisor(python, host, port, {
    ...opts,
    apiKey: opts.apiKey ?? randomBytes(32).toString("base64url"),
    checkpointRoot,
  });
  try {
    await sup.start();
  } catch (err) {
    await sup.stop();
    throw err;
  }
  return sup;
}

class Supervisor implements WorkerProcess {
  private port: number;
  private clientValue: WorkerClient | undefined;
  private child: ChildProcess | undefined;
  private childExited: Promise<void> = Promise.resolve();
  private booting = false;
  private restarting = false;
  private exitEmitted = false;
  private stopping: Promise<void> | undefined;
  private restartCount = 0;
  private resumePath: string | undefined;
  private ready: Promise<void> = Promise.resolve();
  private readonly events = new EventEmitter();
  private readonly recentLog: string[] = [];
  private readonly killOnParentExit = () => {
    if (this.child && !this.exitEmitted) killGroup(this.child);
  };

  constructor(
    private readonly python: string,
    private readonly host: string,
    port: number,
    private readonly opts: StartWorkerOptions & { apiKey: string },
  ) {
    this.port = port;
  }

  get url(): string {
    return `http://${urlHost(this.host)}:${this.port}`;
  }

  get apiKey(): string {
    return this.opts.apiKey;
  }

  /** Created once the port is known (before `startWorker` resolves) and kept across restarts. */
  get client(): WorkerClient {
    this.clientValue ??= new WorkerClient(this.url, { apiKey: this.opts.apiKey });
    return this.clientValue;
  }

  get pid(): number {
    return this.child?.pid ?? -1;
  }

  get restarts(): number {
    return this.restartCount;
  }

  setResumeCheckpoint(path: string | undefined): void {
    this.resumePath = path;
  }

  waitReady(): Promise<void> {
    return this.ready;
  }

  async waitRecovered(timeoutMs = 300_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await this.ready; // a restart in progress; rejects if it failed for good
      try {
        await this.client.health();
        return;
      } catch (e) {
        if (this.exitEmitted) throw e;
        if (Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  on(event: "restart" | "exit", cb: (...a: unknown[]) => void): void {
    this.events.on(event, cb);
  }

  async start(): Promise<void> {
    process.on("exit", this.killOnParentExit);
    this.ready = this.boot();
    await this.ready;
  }

  stop(): Promise<void> {
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  private async terminate(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const graceful = await Promise.race([
        this.childExited.then(() => true),
        sleep(this.opts.stopGraceMs ?? 5000).then(() => false),
      ]);
      if (!graceful) {
        killGroup(child);
        await this.childExited;
      }
    }
    process.removeListener("exit", this.killOnParentExit);
  }

  /** Spawns one worker and waits for `/health`; then loads the resume checkpoint, if any. */
  private async boot(): Promise<void> {
    this.booting = true;
    try {
      const child = this.spawnChild();
      await this.waitHealthy(child);
      if (this.resumePath !== undefined) await this.client.load(this.resumePath, { optimizer: true });
    } finally {
      this.booting = false;
    }
  }

  private spawnChild(): ChildProcess {
    const root = packageRoot();
    const workerDir = join(root, "worker");
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PYTHONUNBUFFERED: "1",
      // the worker runs from the source tree even when not pip-installed
      PYTHONPATH: [workerDir, process.env.PYTHONPATH].filter(Boolean).join(delimiter),
      ENVACE_PARENT_PID: String(process.pid),
      ENVACE_NPROC: String(this.opts.nproc ?? 1),
      ENVACE_BOOTSTRAP: WORKER_BOOTSTRAP,
      ...this.opts.env,
      [WORKER_API_KEY_ENV]: this.opts.apiKey,
    };
    const child = spawn(
      this.python,
      ["-c", WORKER_BOOTSTRAP, ...workerServeArgs({ ...this.opts, host: this.host, port: this.port })],
      {
        cwd: root,
        env,
        stdio: ["ignore", "pipe", "pipe"],
        // its own process group: a terminal's Ctrl-C reaches only us, and we stop the worker in order
        // (a crash is then never confused with a shutdown); PR_SET_PDEATHSIG covers our own death
        detached: true,
      },
    );
    this.child = child;
    for (const stream of [child.stdout, child.stderr]) {
      if (stream) createInterface({ input: stream }).on("line", (line) => this.log(line));
    }
    this.childExited = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        resolve();
        this.onChildExit(child, code, signal);
      });
      // a spawn failure (no such python) emits "error" and never "exit"
      child.once("error", (err) => {
        this.log(`cannot start ${this.python}: ${err.message}`);
        resolve();
      });
    });
    return child;
  }

  private log(line: string): void {
    if (this.port === 0) {
      const m = /^listening on http:\/\/\S+:(\d+)\s*$/.exec(line);
      if (m) this.port = Number(m[1]);
    }
    this.recentLog.push(line);
    if (this.recentLog.length > 40) this.recentLog.shift();
    this.opts.onLog?.(line);
  }

  private async waitHealthy(child: ChildProcess): Promise<void> {
    const deadline = Date.now() + (this.opts.startupTimeoutMs ?? 180_000);
    let exited = false;
    void this.childExited.then(() => (exited = true));
    for (;;) {
      if (exited || this.stopping) {
        throw new EnvaceError(
          "WORKER_UNAVAILABLE",
          `the worker exited during startup (${describeExit(child)}); last output:\n${this.recentLog.slice(-15).join("\n")}`,
        );
      }
      if (Date.now() > deadline) {
        throw new EnvaceError(
          "WORKER_UNAVAILABLE",
          `the worker did not answer ${this.url}/health within ${this.opts.startupTimeoutMs ?? 180_000} ms; last output:\n${this.recentLog.slice(-15).join("\n")}`,
        );
      }
      if (this.port !== 0) {
        try {
          const res = await fetch(`${this.url}/health`, { signal: AbortSignal.timeout(2000) });
          if (res.ok) return;
        } catch {
          // not listening yet
        }
      }
      await sleep(200);
    }
  }

  private onChildExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child) return;
    // whatever the worker started (torchrun's rank processes) goes with it
    killGroup(child);
    if (this.stopping) {
      this.emitExit(code, signal);
      return;
    }
    if (this.booting || this.restarting) return; // boot() sees it and fails
    const maxRestarts = this.opts.maxRestarts ?? 3;
    if (!this.opts.restartOnCrash || this.restartCount >= maxRestarts) {
      this.log(`worker exited (${describeExit(child)})`);
      this.emitExit(code, signal);
      return;
    }
    this.ready = this.restart(code, signal, maxRestarts);
    this.ready.catch(() => undefined); // surfaced through waitReady(); never an unhandled rejection
  }

  private emitExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.exitEmitted) return;
    this.exitEmitted = true;
    this.events.emit("exit", code, signal);
  }

  private async restart(
    code: number | null,
    signal: NodeJS.Signals | null,
    maxRestarts: number,
  ): Promise<void> {
    let lastError: unknown;
    this.restarting = true;
    try {
      while (this.restartCount < maxRestarts && !this.stopping) {
        this.restartCount++;
        this.log(
          `worker died (${code !== null ? `exit ${code}` : signal}); restart ${this.restartCount}/${maxRestarts}`,
        );
        const info: WorkerRestartInfo = { restarts: this.restartCount, code, signal };
        this.events.emit("restart", info);
        try {
          await this.boot();
          return;
        } catch (err) {
          lastError = err;
          // a worker that came up but failed to resume must not linger
          if (this.child && this.child.exitCode === null) {
            killGroup(this.child);
            await this.childExited;
          }
        }
      }
    } finally {
      this.restarting = false;
    }
    this.emitExit(code, signal);
    throw lastError ?? new EnvaceError("WORKER_UNAVAILABLE", "the worker was stopped while restarting");
  }
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * One clear error before any worker starts when `model` is not a local model directory (the worker
 * would otherwise treat the name as a Hugging Face hub id and wait for the network).
 */
function checkModelDir(model: string): void {
  if (!isDir(model))
    throw new EnvaceError(
      "INVALID_CONFIG",
      `model ${model}: no such directory (give a local model directory)`,
    );
  if (!existsSync(join(model, "config.json")))
    throw new EnvaceError("INVALID_CONFIG", `model ${model}: not a model directory (it has no config.json)`);
}

function describeExit(child: ChildProcess): string {
  if (child.signalCode) return `signal ${child.signalCode}`;
  if (child.exitCode !== null) return `exit code ${child.exitCode}`;
  return "no exit status";
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * SIGKILL to the worker's whole process group (it leads its own: spawned detached), so that
 * torchrun's rank processes cannot outlive it; a no-op when the group is already gone.
 */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // no such group: already gone
  }
}
