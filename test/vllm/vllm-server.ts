import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * A real vLLM OpenAI server for the integration tests (`npm run test:vllm`), from `.venv-vllm`
 * (`npm run setup:vllm`). LoRA runtime updates and the dev routes (pause/resume/collective_rpc)
 * are on; logprobs are after temperature (`processed_logprobs`), as the trainer computes them.
 */
export interface VllmServer {
  url: string;
  baseURL: string;
  stop(): Promise<void>;
}

/**
 * Where the servers (and the worker next to them) run: `cpu` (default), or `cuda` with
 * ENVACE_VLLM_DEVICE=cuda (`npm run check:gpu:vllm`: CUDA vLLM from `.venv-vllm-gpu`).
 */
export const VLLM_DEVICE: "cpu" | "cuda" = process.env.ENVACE_VLLM_DEVICE === "cuda" ? "cuda" : "cpu";

export const VLLM_PYTHON =
  process.env.ENVACE_VLLM_PYTHON ??
  join(process.cwd(), VLLM_DEVICE === "cuda" ? ".venv-vllm-gpu" : ".venv-vllm", "bin", "python");

export function vllmAvailable(): boolean {
  return existsSync(VLLM_PYTHON) && spawnSync(VLLM_PYTHON, ["-c", "import vllm"]).status === 0;
}

/**
 * Why the GPU runs cannot happen here, or null when they can: a CUDA device visible to the
 * worker's torch (the worker and vLLM share it).
 */
export function noGpuReason(): string | null {
  const py = join(process.cwd(), ".venv", "bin", "python");
  const r = spawnSync(py, ["-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 3)"]);
  if (r.status === 0) return null;
  return r.status === 3 ? "no CUDA GPU (torch.cuda.is_available() is False)" : `cannot run ${py}`;
}

export async function startVllm(opts: {
  model: string;
  servedName: string;
  port: number;
  log: (line: string) => void;
  startupMs?: number;
  /** Context length (default 512; the rehearsal example's prompts need 2048). */
  maxModelLen?: number;
}): Promise<VllmServer> {
  const args = [
    "-m",
    "vllm.entrypoints.openai.api_server",
    "--model",
    opts.model,
    "--served-model-name",
    opts.servedName,
    "--dtype",
    "float32", // as the worker: the logprobs are compared token by token
    "--max-model-len",
    String(opts.maxModelLen ?? 512),
    "--enable-lora",
    "--max-lora-rank",
    "8",
    "--max-loras",
    "2",
    "--logprobs-mode",
    "processed_logprobs",
    "--host",
    "127.0.0.1",
    "--port",
    String(opts.port),
    // one GPU holds the trainer too: leave it most of the memory
    ...(VLLM_DEVICE === "cuda" ? ["--gpu-memory-utilization", "0.25"] : []),
  ];
  const child: ChildProcess = spawn(VLLM_PYTHON, args, {
    env: {
      ...process.env,
      VLLM_ALLOW_RUNTIME_LORA_UPDATING: "1",
      VLLM_SERVER_DEV_MODE: "1",
      VLLM_HTTP_TIMEOUT_KEEP_ALIVE: "120", // as README says: longer than Node pools an idle connection
      ...(VLLM_DEVICE === "cpu" ? { VLLM_CPU_KVCACHE_SPACE: "1" } : {}),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true, // its own process group: stop() ends the engine core process too
  });
  const onData = (b: Buffer) => b.toString().split("\n").filter(Boolean).forEach(opts.log);
  child.stdout!.on("data", onData);
  child.stderr!.on("data", onData);
  const url = `http://127.0.0.1:${opts.port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.pid === undefined) return;
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    process.kill(-child.pid, "SIGTERM");
    const t = setTimeout(() => child.pid && process.kill(-child.pid, "SIGKILL"), 20_000);
    await exited;
    clearTimeout(t);
  };
  const deadline = Date.now() + (opts.startupMs ?? 480_000);
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vLLM exited with ${child.exitCode} before serving`);
    try {
      if ((await fetch(`${url}/v1/models`)).ok) return { url, baseURL: `${url}/v1`, stop };
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  await stop();
  throw new Error(`vLLM did not serve ${url} within ${(opts.startupMs ?? 480_000) / 1000} s`);
}

/**
 * Requests a server finished sampling (stopped or at the length limit), from its Prometheus
 * `/metrics` (`vllm:request_success_total`, summed over models, adapters included).
 */
export async function servedChatCompletions(baseURL: string): Promise<number> {
  const res = await fetch(`${baseURL.replace(/\/v1\/?$/, "")}/metrics`);
  if (!res.ok) throw new Error(`GET /metrics answered ${res.status}`);
  let n = 0;
  for (const line of (await res.text()).split("\n")) {
    const m =
      /^vllm:request_success_total\{[^}]*finished_reason="(stop|length)"[^}]*\}\s+([0-9.eE+-]+)$/.exec(line);
    if (m) n += Number(m[2]);
  }
  return n;
}
