"""Worker benchmark (not a test): `python -m envace_worker.bench [--json] [--size s]`.

matmul_gflops   best float32 square-matmul throughput of torch on this machine (the "peak")
train_gflops    achieved FLOP/s of one forward_backward + optim_step of the tiny model on
                --seqs x --seq-len tokens (default 8 x 512 = 4096 tokens, all targets)
mfu             train_gflops / matmul_gflops
sample_tps_1    completion tokens/s, one client sending chat requests one after another
sample_tps_32   completion tokens/s, 32 concurrent clients (real HTTP to a worker started here)
batching_speedup  sample_tps_32 / sample_tps_1
FLOPs counted: 6 x (matmul weights incl. the LM head) per token + 6 x attention score/value
products (causal: half the square) per layer.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # as `python -m envace_worker` (see __main__.py)

import torch  # noqa: E402

from .auth import ENV_VAR, new_token  # noqa: E402


def matmul_gflops(sizes=(512, 1024, 2048), seconds=1.0) -> float:
    best = 0.0
    for n in sizes:
        a, b = torch.randn(n, n), torch.randn(n, n)
        a @ b
        reps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            a @ b
            reps += 1
        best = max(best, 2 * n ** 3 * reps / (time.perf_counter() - t0) / 1e9)
    return best


def write_corpus(path: str, lines: int = 2000) -> str:
    rng = random.Random(0)
    words = ("the order is pending please cancel my item user address shipped refund total price "
             "flight booking seat change name email phone status payment gift card").split()
    with open(path, "w") as f:
        for _ in range(lines):
            f.write(" ".join(rng.choice(words) for _ in range(rng.randint(5, 20))) + f" #W{rng.randint(1000, 9999)}\n")
    return path


def tiny_model_dir(size: str, tmp: str) -> str:
    """The tiny model of `size` (seed 0, tokenizer trained on write_corpus) saved under tmp."""
    from .tiny import init_tiny, save_model

    model, tok = init_tiny(write_corpus(os.path.join(tmp, "corpus.txt")), size, seed=0)
    model_dir = os.path.join(tmp, "model")
    save_model(model, tok, model_dir)
    return model_dir


def train_flops_per_step(cfg, seqs: int, seq_len: int) -> float:
    h, L, V = cfg.hidden_size, cfg.num_hidden_layers, cfg.vocab_size
    q = cfg.num_attention_heads * cfg.head_dim
    kv = cfg.num_key_value_heads * cfg.head_dim
    per_layer = h * q + 2 * h * kv + q * h + 3 * h * cfg.intermediate_size
    tokens = seqs * seq_len
    dense = 6 * (L * per_layer + V * h) * tokens
    attn = 6 * L * 2 * q * (seq_len * (seq_len + 1) / 2) * seqs
    return dense + attn


def train_gflops(model_dir: str, seqs: int, seq_len: int, steps: int = 4) -> float:
    from .model_host import HostOptions, load_host
    from .train_batch import parse_forward_backward, parse_optim_step
    from .trainer import Trainer

    host = load_host(HostOptions(model=model_dir, kl_reference=False))
    tr = Trainer(host, micro_batch_tokens=seqs * seq_len)
    v = host.base.config.vocab_size
    g = torch.Generator().manual_seed(0)
    body = {"sequences": [{"token_ids": torch.randint(0, v, (seq_len,), generator=g).tolist(),
                           "loss_mask": [0] + [1] * (seq_len - 1)} for _ in range(seqs)]}
    fb = parse_forward_backward(body, v, host.max_context, False)
    o = parse_optim_step({"lr": 1e-4, "max_grad_norm": 1.0})
    tr.forward_backward(fb)
    tr.optim_step(o)  # warm-up
    t0 = time.perf_counter()
    for _ in range(steps):
        tr.forward_backward(fb)
        tr.optim_step(o)
    dt = (time.perf_counter() - t0) / steps
    return train_flops_per_step(host.base.config, seqs, seq_len) / dt / 1e9


_TOKEN = new_token()   # the served worker's bearer token (passed through its environment)


def _chat(base: str, i: int, max_tokens: int) -> int:
    body = {"messages": [{"role": "user", "content": f"please cancel order #W{1000 + i}"}],
            "max_tokens": max_tokens, "temperature": 1.0, "seed": i}
    req = urllib.request.Request(base + "/v1/chat/completions", data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "authorization": f"Bearer {_TOKEN}"})
    with urllib.request.urlopen(req, timeout=600) as r:
        return json.loads(r.read())["usage"]["completion_tokens"]


def sample_tps(base: str, clients: int, requests_per_client: int, max_tokens: int) -> float:
    total = [0] * clients

    def run(c):
        for k in range(requests_per_client):
            total[c] += _chat(base, c * 1000 + k, max_tokens)

    ts = [threading.Thread(target=run, args=(c,)) for c in range(clients)]
    t0 = time.perf_counter()
    [t.start() for t in ts]
    [t.join() for t in ts]
    return sum(total) / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m envace_worker.bench")
    ap.add_argument("--json", action="store_true", help="print one JSON object only")
    ap.add_argument("--size", default="s", choices=["xs", "s", "m"])
    ap.add_argument("--seqs", type=int, default=8)
    ap.add_argument("--seq-len", type=int, default=512)
    ap.add_argument("--max-tokens", type=int, default=32)
    a = ap.parse_args(argv)
    say = (lambda *_: None) if a.json else (lambda m: print(m, file=sys.stderr, flush=True))

    model_dir = tiny_model_dir(a.size, tempfile.mkdtemp(prefix="envace-bench-"))

    say("matmul peak ...")
    peak = matmul_gflops()
    say(f"  {peak:.1f} GFLOP/s; training step ({a.seqs} x {a.seq_len} tokens, tiny-{a.size}) ...")
    tg = train_gflops(model_dir, a.seqs, a.seq_len)
    say(f"  {tg:.1f} GFLOP/s; sampling ...")
    proc = subprocess.Popen([sys.executable, "-m", "envace_worker", "serve", "--model", model_dir, "--port", "0",
                             "--no-kl-reference"], stdout=subprocess.PIPE, text=True,
                            env={**os.environ, ENV_VAR: _TOKEN})
    try:
        line = proc.stdout.readline()
        if not line.startswith("listening on "):
            raise RuntimeError(f"worker did not start: {line!r}")
        base = line.split()[-1]
        _chat(base, 0, 4)
        tps1 = sample_tps(base, 1, 8, a.max_tokens)
        tps32 = sample_tps(base, 32, 4, a.max_tokens)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    out = {"matmul_gflops": round(peak, 2), "train_gflops": round(tg, 2), "mfu": round(tg / peak, 3),
           "sample_tps_1": round(tps1, 1), "sample_tps_32": round(tps32, 1),
           "batching_speedup": round(tps32 / tps1, 2)}
    print(json.dumps(out) if a.json else json.dumps(out, indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
