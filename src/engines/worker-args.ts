import { EnvaceError } from "../core/errors.js";

/** How to start the worker: a Hugging Face model directory, or a tiny model initialised from a corpus. */
export interface WorkerModelOptions {
  /** A Hugging Face causal-LM directory. */
  model?: string;
  /** A tiny Qwen3-architecture model with a BPE tokenizer trained on `corpus`. */
  init?: { corpus: string; size?: "xs" | "s" | "m"; vocabExtra?: string; seed?: number };
  /** Train LoRA adapters of this rank instead of all weights. */
  loraRank?: number;
  /**
   * With more than one process: `ddp` (every rank holds the model), `fsdp` (weights, gradients and
   * optimizer state sharded; rank 0 keeps a sampling copy) or `auto` (fsdp on CUDA, ddp on CPU).
   */
  parallel?: "auto" | "ddp" | "fsdp";
  /** `cpu`, `cuda`, `cuda:N` or `auto` (the worker's default: CUDA when present). */
  device?: string;
  /** Weight dtype (default float32). */
  dtype?: "float32" | "bfloat16" | "float16";
}

/** Arguments after `python -m envace_worker` for `serve`. */
export function workerServeArgs(
  opts: WorkerModelOptions & { host: string; port: number; checkpointRoot?: string; extraArgs?: string[] },
): string[] {
  if ((opts.model === undefined) === (opts.init === undefined)) {
    throw new EnvaceError(
      "INVALID_CONFIG",
      "start the worker with exactly one of `model` (a model directory) or `init` (tiny model from a corpus)",
    );
  }
  const args = ["serve"];
  if (opts.model !== undefined) args.push("--model", opts.model);
  if (opts.init) {
    args.push("--init", "tiny", "--corpus", opts.init.corpus);
    if (opts.init.size) args.push("--size", opts.init.size);
    if (opts.init.vocabExtra) args.push("--vocab-extra", opts.init.vocabExtra);
    if (opts.init.seed !== undefined) args.push("--seed", String(opts.init.seed));
  }
  if (opts.loraRank !== undefined) args.push("--lora-rank", String(opts.loraRank));
  if (opts.parallel !== undefined) args.push("--parallel", opts.parallel);
  if (opts.device !== undefined) args.push("--device", opts.device);
  if (opts.dtype !== undefined) args.push("--dtype", opts.dtype);
  args.push("--host", opts.host, "--port", String(opts.port));
  if (opts.checkpointRoot !== undefined) args.push("--checkpoint-root", opts.checkpointRoot);
  if (opts.extraArgs) args.push(...opts.extraArgs);
  return args;
}

/**
 * Python run with `-c` in front of the worker's `__main__`: on Linux it asks the kernel to kill the
 * worker when its parent dies (PR_SET_PDEATHSIG), so that even a `kill -9` of the Node process
 * leaves no orphan holding the port and the model in memory. Elsewhere it is a plain `-m` run.
 *
 * With ENVACE_NPROC > 1 it becomes torchrun (`torch.distributed.run --standalone`), which starts
 * every rank with this same bootstrap (from ENVACE_BOOTSTRAP): the launcher gets SIGTERM when Node
 * dies, so that it shuts its ranks down, and each rank gets SIGKILL when the launcher dies (torchrun
 * puts ranks in sessions of their own, out of reach of a process-group kill).
 */
export const WORKER_BOOTSTRAP = [
  "import os, sys, signal",
  "nproc = int(os.environ.get('ENVACE_NPROC', '1'))",
  "rank = 'LOCAL_RANK' in os.environ",
  "launcher = nproc > 1 and not rank",
  "try:",
  "    import ctypes",
  "    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM if launcher else signal.SIGKILL)",
  "    if not rank and os.getppid() != int(os.environ.get('ENVACE_PARENT_PID', os.getppid())): sys.exit(1)",
  "except (OSError, AttributeError, ValueError):",
  "    pass",
  "import runpy",
  "if launcher:",
  "    sys.argv = ['torchrun', '--standalone', f'--nproc_per_node={nproc}', '--no-python',",
  "                sys.executable, '-c', os.environ['ENVACE_BOOTSTRAP']] + sys.argv[1:]",
  "    runpy.run_module('torch.distributed.run', run_name='__main__', alter_sys=True)",
  "else:",
  "    sys.argv = ['envace_worker'] + sys.argv[1:]",
  "    runpy.run_module('envace_worker', run_name='__main__', alter_sys=True)",
].join("\n");
