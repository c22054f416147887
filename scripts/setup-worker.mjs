#!/usr/bin/env node
// Creates .venv and installs the PyTorch worker into it. Idempotent: a second run only checks.
// torch is installed first, pinned to 2.13.0, only where no torch >= 2.1 is present: an unpinned
// `torch` would pull a multi-GB CUDA build, and an existing GPU build must be kept.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const venv = process.env.ENVACE_VENV ?? join(root, ".venv");
const py = join(venv, "bin", "python");
const quiet = process.argv.includes("--quiet");
const say = (m) => {
  if (!quiet) process.stderr.write(`[setup:worker] ${m}\n`);
};

// The stamp records what was installed so that a re-run is a no-op unless the worker's deps changed.
const pyproject = readFileSync(join(root, "worker", "pyproject.toml"), "utf8");
const want = createHash("sha256").update(pyproject).digest("hex").slice(0, 16);
const stamp = join(venv, ".envace-worker-stamp");
if (existsSync(py) && existsSync(stamp) && readFileSync(stamp, "utf8").trim() === want) {
  say("worker environment is up to date");
  process.exit(0);
}

const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { stdio: quiet ? ["ignore", "ignore", "inherit"] : "inherit" });
  if (r.status !== 0) {
    process.stderr.write(`[setup:worker] failed: ${cmd} ${args.join(" ")}\n`);
    process.exit(r.status ?? 1);
  }
};

if (!existsSync(py)) {
  process.stderr.write(`[setup:worker] creating the Python environment in ${venv} (first use only)\n`);
  const python = process.env.PYTHON ?? "python3";
  run(python, ["-m", "venv", venv]);
}
let torchOk = false;
try {
  const v = execFileSync(py, ["-c", "import torch; print(torch.__version__)"], {
    stdio: ["ignore", "pipe", "ignore"],
  })
    .toString()
    .trim();
  const [maj, min] = v.split(".").map((x) => parseInt(x, 10));
  torchOk = maj > 2 || (maj === 2 && min >= 1);
  if (torchOk) say(`keeping installed torch ${v}`);
} catch {
  torchOk = false;
}
if (!torchOk) {
  process.stderr.write("[setup:worker] installing torch==2.13.0\n");
  run(py, ["-m", "pip", "install", "--quiet", "torch==2.13.0"]);
}
process.stderr.write("[setup:worker] installing the envace worker\n");
run(py, ["-m", "pip", "install", "--quiet", "-e", `${join(root, "worker")}[test]`]);
writeFileSync(stamp, want + "\n");
say(`done (${statSync(py).isFile() ? py : venv})`);
