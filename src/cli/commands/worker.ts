import { Command, InvalidArgumentError, Option } from "commander";
import { EnvaceError } from "../../core/errors.js";
import { ensureWorkerEnv, startWorker, type StartWorkerOptions } from "../../engines/index.js";
import { WORKER_API_KEY_ENV } from "../../engines/worker-client.js";

interface ServeFlags {
  model?: string;
  init?: string;
  corpus?: string;
  size?: "xs" | "s" | "m";
  vocabExtra?: string;
  seed?: number;
  loraRank?: number;
  host: string;
  port: number;
  maxRestarts: number;
  nproc: number;
  parallel?: "auto" | "ddp" | "fsdp";
  quiet?: boolean;
  apiKey?: string;
  checkpointRoot?: string;
}

const int = (v: string): number => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError("expected a non-negative integer");
  return n;
};

/** `envace worker serve`: starts the PyTorch worker and supervises it until SIGINT/SIGTERM. */
export function register(program: Command): void {
  const worker = program.command("worker").description("The PyTorch worker (sampling and training engine)");
  worker
    .command("serve")
    .description("Start the worker's HTTP server (OpenAI-compatible chat + training endpoints)")
    .argument("[worker-args...]", "more worker options after `--` (e.g. -- --device cuda --threads 2)")
    .option("--model <path>", "a Hugging Face causal-LM directory")
    .option("--init <kind>", "initialise a fresh model instead: `tiny` (needs --corpus)")
    .option("--corpus <file>", "text corpus for the tiny model's tokenizer")
    .option("--size <size>", "tiny model size: xs | s | m")
    .option("--vocab-extra <file>", "whole tokens to add to the tiny tokenizer, one per line")
    .option("--seed <n>", "seed for the tiny model's initialisation", int)
    .option("--lora-rank <r>", "train LoRA adapters of this rank", int)
    .option("--host <host>", "address to bind", "127.0.0.1")
    .option("--port <n>", "port to listen on (0: pick a free one)", int, 8000)
    .option("--nproc <n>", "data-parallel processes (torchrun; gloo on CPU, NCCL on GPU)", int, 1)
    .addOption(
      new Option(
        "--parallel <mode>",
        "with --nproc > 1: ddp (each rank holds the model) or fsdp (weights, gradients and optimizer " +
          "state sharded; rank 0 keeps a sampling copy); auto = fsdp on CUDA, ddp on CPU",
      ).choices(["auto", "ddp", "fsdp"]),
    )
    .option("--max-restarts <n>", "restart the worker up to n times if it crashes", int, 0)
    .option(
      "--api-key <token>",
      `bearer token clients must send (every endpoint but /health); default $${WORKER_API_KEY_ENV}, ` +
        "else a random one printed on stderr",
    )
    .option(
      "--checkpoint-root <dir>",
      "directory that /v1/train/save and /load paths must stay inside (default: the current directory)",
    )
    .option("--quiet", "do not echo the worker's log to stderr")
    .action(async (workerArgs: string[], flags: ServeFlags) => {
      const opts = { ...serveOptions(flags), extraArgs: workerArgs };
      await ensureWorkerEnv({ quiet: true });
      const proc = await startWorker(opts);
      process.stdout.write(`listening on ${proc.url}\n`);
      if (opts.apiKey === undefined)
        process.stderr.write(
          `envace: api key (clients send Authorization: Bearer …; envace reads $${WORKER_API_KEY_ENV}): ${proc.apiKey}\n`,
        );
      let stopping = false;
      const shutdown = (sig: string) => {
        // a signal can arrive twice (a terminal signals the whole group and tsx relays it too);
        // stop() itself escalates to SIGKILL after its grace period
        if (stopping) return;
        stopping = true;
        process.stderr.write(`envace: ${sig}, stopping the worker\n`);
        void proc.stop().then(() => process.exit(0));
      };
      process.on("SIGINT", () => shutdown("SIGINT"));
      process.on("SIGTERM", () => shutdown("SIGTERM"));
      proc.on("exit", (code) => {
        if (stopping) return;
        process.stderr.write(`envace: the worker exited (${String(code)})\n`);
        process.exitCode = 1;
      });
    });
}

function serveOptions(f: ServeFlags): StartWorkerOptions {
  if (f.size !== undefined && !["xs", "s", "m"].includes(f.size)) {
    throw new EnvaceError("INVALID_CONFIG", `--size must be xs, s or m (got ${f.size})`);
  }
  const base: StartWorkerOptions = {
    host: f.host,
    port: f.port,
    restartOnCrash: f.maxRestarts > 0,
    nproc: Math.max(1, f.nproc),
    maxRestarts: f.maxRestarts,
    ...(f.loraRank !== undefined ? { loraRank: f.loraRank } : {}),
    ...(f.parallel !== undefined ? { parallel: f.parallel } : {}),
    ...((f.apiKey ?? process.env[WORKER_API_KEY_ENV])
      ? { apiKey: f.apiKey ?? process.env[WORKER_API_KEY_ENV] }
      : {}),
    ...(f.checkpointRoot !== undefined ? { checkpointRoot: f.checkpointRoot } : {}),
    ...(f.quiet ? {} : { onLog: (line: string) => process.stderr.write(`[worker] ${line}\n`) }),
  };
  if (f.model !== undefined && f.init === undefined) return { ...base, model: f.model };
  if (f.init !== undefined && f.model === undefined) {
    if (f.init !== "tiny") throw new EnvaceError("INVALID_CONFIG", `--init must be \`tiny\` (got ${f.init})`);
    if (!f.corpus) throw new EnvaceError("INVALID_CONFIG", "--init tiny needs --corpus FILE");
    return {
      ...base,
      init: {
        corpus: f.corpus,
        ...(f.size ? { size: f.size } : {}),
        ...(f.vocabExtra ? { vocabExtra: f.vocabExtra } : {}),
        ...(f.seed !== undefined ? { seed: f.seed } : {}),
      },
    };
  }
  throw new EnvaceError("INVALID_CONFIG", "give exactly one of --model PATH or --init tiny --corpus FILE");
}
