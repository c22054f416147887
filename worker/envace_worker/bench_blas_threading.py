"""BLAS threading benchmark (not a test): `python -m envace_worker.bench_blas_threading [--json]`.

The worker sets Intel's conditions for repeatable MKL results (`MKL_DYNAMIC=FALSE`: a fixed thread
count; `MKL_CBWR=AUTO`: a fixed CNR branch; see `envace_worker/__init__.py`) so that two trainings
on one machine give the same weights. This measures what that costs and buys against MKL's defaults
(dynamic threads, CNR off): the tiny demo model trained for a few AdamW steps on demo-shaped
micro-batches, in fresh processes under each setting, alternated (dynamic, fixed, dynamic, fixed,
...) so that drift in the machine's speed falls on both.

dynamic_step_s / fixed_step_s   median wall time of one forward + backward + optimizer step under
                                MKL's defaults / under the worker's settings
fixed_step_ratio                fixed_step_s / dynamic_step_s (> 1: the worker's settings cost time)
dynamic_weights / fixed_weights distinct final-weight digests over the runs of each setting
                                (1: repeatable; MKL's defaults can give more on a loaded machine)
load                            busy processes run beside the measurement (`--load N`): a fixed
                                thread count waits, at each parallel step, for a thread the OS has
                                descheduled (seen: some runs 10x slower); MKL's dynamic default
                                uses fewer threads instead. The worker with `serve --threads 1` avoids both
"""
from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time


def _train(steps: int, seqs: int, seq_len: int) -> dict:
    import torch
    from transformers import Qwen3ForCausalLM

    from .tiny import tiny_config

    torch.manual_seed(0)
    model = Qwen3ForCausalLM(tiny_config(4096, "xs", 1, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(1)
    times = []
    for _ in range(steps):
        ids = torch.randint(0, 4096, (seqs, seq_len), generator=g)
        t = time.perf_counter()
        model(input_ids=ids, labels=ids).loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad()
        times.append(time.perf_counter() - t)
    digest = hashlib.sha256()
    for p in model.parameters():
        digest.update(p.detach().numpy().tobytes())
    return {"step_s": statistics.median(times[1:]), "weights": digest.hexdigest()[:16]}


MKL_SETTINGS = ("MKL_DYNAMIC", "OMP_DYNAMIC", "MKL_CBWR")


def _child(dynamic: bool, steps: int, seqs: int, seq_len: int) -> dict:
    # "fixed" leaves the settings to the worker's own import (envace_worker/__init__.py), which sets
    # them where they are unset; "dynamic" sets MKL's defaults first (MKL_CBWR="": CNR off)
    env = {k: v for k, v in os.environ.items() if k not in MKL_SETTINGS}
    if dynamic:
        env.update(MKL_DYNAMIC="TRUE", MKL_CBWR="")
    args = [sys.executable, "-m", "envace_worker.bench_blas_threading", "--child",
            "--steps", str(steps), "--seqs", str(seqs), "--seq-len", str(seq_len)]
    out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def _busy() -> None:
    while True:
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per setting (default 3)")
    ap.add_argument("--steps", type=int, default=12, help="training steps per process (default 12)")
    ap.add_argument("--seqs", type=int, default=16, help="sequences per step (default 16)")
    ap.add_argument("--seq-len", type=int, default=128, help="tokens per sequence (default 128: "
                    "16 x 128 is the demo's 2,048-token micro-batch)")
    ap.add_argument("--load", type=int, default=0, help="busy processes beside the measurement, as "
                    "other programs on a shared machine (default 0)")
    ap.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        print(json.dumps(_train(a.steps, a.seqs, a.seq_len)))
        return 0
    runs: dict[bool, list] = {True: [], False: []}
    hogs = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(a.load)]
    for h in hogs:
        h.start()
    try:
        for i in range(a.runs):
            for dynamic in (True, False):
                r = _child(dynamic, a.steps, a.seqs, a.seq_len)
                runs[dynamic].append(r)
                if not a.json:
                    print(f"run {i + 1}/{a.runs} {'dynamic' if dynamic else 'fixed'}: "
                          f"{r['step_s'] * 1000:.1f} ms/step, weights {r['weights']}", file=sys.stderr)
    finally:
        for h in hogs:
            h.terminate()
    dyn = statistics.median(r["step_s"] for r in runs[True])
    fix = statistics.median(r["step_s"] for r in runs[False])
    out = {
        "threads": os.cpu_count(),
        "load": a.load,
        "dynamic_step_s": round(dyn, 5),
        "fixed_step_s": round(fix, 5),
        "fixed_step_ratio": round(fix / dyn, 3),
        "dynamic_weights": len({r["weights"] for r in runs[True]}),
        "fixed_weights": len({r["weights"] for r in runs[False]}),
    }
    if a.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:18} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
