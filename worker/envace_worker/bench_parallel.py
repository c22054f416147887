"""Data-parallel benchmark (not a test): `python -m envace_worker.bench_parallel [--json]`.

Trains the tiny model for a few steps on 2 CPU processes (gloo) under `--parallel ddp` and under
`--parallel fsdp`, on the same batches, and reports per rank what training keeps in memory:

ddp_train_mb / fsdp_train_mb   rank 1's trainable weights + their gradients (same shapes, alive during
                               a step) + AdamW state + KL reference, counted from the tensors each
                               rank holds (its shards under FSDP)
fsdp_train_ratio               fsdp_train_mb / ddp_train_mb: 1 / world for a fully sharded model
fsdp_rank0_mb                  rank 0 under FSDP: its shards plus the unsharded sampling copy
ddp_step_s / fsdp_step_s       wall time of one forward_backward + optim_step (median over steps)
fsdp_step_ratio                fsdp_step_s / ddp_step_s (gathering the sampling copy costs time)
max_weight_diff                largest |w_ddp - w_fsdp| after the last step (same update expected)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

MB = 1 << 20


def _local_bytes(t) -> int:
    t = t.to_local() if hasattr(t, "to_local") else t
    return t.numel() * t.element_size()


def _train_state_bytes(trainer) -> int:
    """Trainable weights, their gradients, the optimizer state and the frozen reference, as held
    by this rank (sampling-only copies excluded). Gradients are freed after each step; during one
    they have the weights' local shapes, so they count as much as the weights."""
    policy = trainer.policy
    params = policy.trainable_parameters()
    total = 2 * sum(_local_bytes(p) for p in params)
    for st in trainer.opt.state.values():
        total += sum(_local_bytes(v) for v in st.values() if torch.is_tensor(v))
    ref = getattr(policy, "_ref", None)
    if ref is not None:
        total += sum(_local_bytes(p) for p in ref.parameters())
    return total


def _sampling_copy_bytes(host) -> int:
    return sum(p.numel() * p.element_size() for p in host.model.parameters())


def _batch(seed: int, seqs: int, seq_len: int, vocab: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(seqs):
        ids = torch.randint(3, vocab, (seq_len,), generator=g).tolist()
        out.append({"token_ids": ids, "loss_mask": [0] + [1] * (seq_len - 1),
                    "advantages": torch.randn(seq_len, generator=g).tolist(),
                    "sampling_logprobs": (-torch.rand(seq_len, generator=g) * 3 - 3).tolist()})
    return {"sequences": out, "loss": {"fn": "ppo", "kl_coef": 0.01}}


def _rank(rank, world, port, model_dir, mode, steps, seqs, seq_len, out):
    from .distributed import Commands, make_policy
    from .model_host import HostOptions, load_host
    from .train_batch import parse_forward_backward, parse_optim_step
    from .trainer import Trainer

    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        host = load_host(HostOptions(model=model_dir))
        trainer = Trainer(host, rank, world, policy=make_policy(host, rank, world, mode))
        cmds = Commands(trainer, rank, world)
        if rank > 0:
            cmds.follow()
            torch.save({"train_bytes": _train_state_bytes(trainer)}, f"{out}.rank{rank}")
        else:
            vocab = host.base.config.vocab_size
            times = []
            for s in range(steps):
                fb = parse_forward_backward(_batch(s, seqs, seq_len, vocab), vocab, host.max_context, True)
                t0 = time.perf_counter()
                cmds.run("forward_backward", fb)
                cmds.run("optim_step", parse_optim_step({"lr": 1e-3, "eps": 1e-4}))
                times.append(time.perf_counter() - t0)
            train_bytes = _train_state_bytes(trainer)   # before stop: the followers count theirs after it
            cmds.stop()
            torch.save({"times": times, "train_bytes": train_bytes, "sampling_bytes": _sampling_copy_bytes(host),
                        "w": {k: v.detach().clone() for k, v in host.model.state_dict().items()}}, out)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_mode(model_dir, mode, steps, seqs, seq_len, tmp) -> tuple:
    out = os.path.join(tmp, f"{mode}.pt")
    mp.spawn(_rank, args=(2, _free_port(), model_dir, mode, steps, seqs, seq_len, out), nprocs=2, join=True)
    return torch.load(out), torch.load(out + ".rank1")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m envace_worker.bench_parallel")
    ap.add_argument("--json", action="store_true", help="print one JSON object only")
    ap.add_argument("--size", default="s", choices=["xs", "s", "m"])
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--seqs", type=int, default=4)
    ap.add_argument("--seq-len", type=int, default=256)
    a = ap.parse_args(argv)
    say = (lambda *_: None) if a.json else (lambda m: print(m, file=sys.stderr, flush=True))

    from .bench import tiny_model_dir

    tmp = tempfile.mkdtemp(prefix="envace-bench-parallel-")
    model_dir = tiny_model_dir(a.size, tmp)
    say(f"ddp, 2 processes, tiny-{a.size}, {a.steps} steps ...")
    ddp0, ddp1 = run_mode(model_dir, "ddp", a.steps, a.seqs, a.seq_len, tmp)
    say("fsdp, 2 processes ...")
    fsdp0, fsdp1 = run_mode(model_dir, "fsdp", a.steps, a.seqs, a.seq_len, tmp)
    # the first step pays one-off costs (allocator, FSDP lazy init): the median of the rest
    ddp_s, fsdp_s = (statistics.median(r["times"][1:] or r["times"]) for r in (ddp0, fsdp0))
    diff = max((ddp0["w"][k] - fsdp0["w"][k]).abs().max().item() for k in ddp0["w"])
    out = {"ddp_train_mb": round(ddp1["train_bytes"] / MB, 2), "fsdp_train_mb": round(fsdp1["train_bytes"] / MB, 2),
           "fsdp_train_ratio": round(fsdp1["train_bytes"] / ddp1["train_bytes"], 3),
           "fsdp_rank0_mb": round((fsdp0["train_bytes"] + fsdp0["sampling_bytes"]) / MB, 2),
           "ddp_step_s": round(ddp_s, 3), "fsdp_step_s": round(fsdp_s, 3),
           "fsdp_step_ratio": round(fsdp_s / ddp_s, 2), "max_weight_diff": diff}
    print(json.dumps(out) if a.json else json.dumps(out, indent=2), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
