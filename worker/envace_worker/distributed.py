"""Data-parallel training under torchrun. Rank 0 serves HTTP; every training command it runs is
first broadcast to the other ranks (which sit in `follow`), so that all ranks execute the same
command on their share of the data.

Two modes (`--parallel`; auto picks fsdp on CUDA, ddp on CPU):
- ddp: torch's DistributedDataParallel; every rank holds the whole model, gradients are averaged in
  each backward, and all ranks hold identical weights after each step.
- fsdp: parameters, gradients and optimizer state are sharded with FSDP2 (fsdp.py); rank 0 keeps an
  unsharded sampling copy that is refreshed after each step.
Backend: gloo on CPU, nccl on CUDA."""
from __future__ import annotations

import os

import torch
import torch.distributed as dist

from .errors import BadRequest


def env_world() -> tuple:
    return int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))


def init(device: str) -> tuple:
    rank, world = env_world()
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("nccl" if device.startswith("cuda") else "gloo")
    return rank, world


PARALLEL_MODES = ("auto", "ddp", "fsdp")


def resolve_parallel(mode: str, device: str, world: int) -> str:
    """"none" for one process; else the mode asked for, with auto -> fsdp on CUDA, ddp on CPU."""
    if mode not in PARALLEL_MODES:
        raise ValueError(f"unknown --parallel {mode!r}; expected one of {list(PARALLEL_MODES)}")
    if world == 1:
        return "none"
    if mode == "auto":
        return "fsdp" if device.startswith("cuda") else "ddp"
    return mode


def make_policy(host, rank: int, world: int, mode: str):
    from .policy import PlainPolicy

    if mode == "fsdp":
        from .fsdp import ShardedPolicy

        return ShardedPolicy(host, rank, world)
    return PlainPolicy(host, ddp_world=world if mode == "ddp" else 1)


def sync_parameters(model) -> None:
    """Make every rank start from rank 0's weights (tokenizer training and init are deterministic,
    but this makes it certain)."""
    with torch.no_grad():
        for p in model.parameters():
            dist.broadcast(p.data, 0)


class Commands:
    """Runs a trainer command on every rank. On rank 0, `run` broadcasts then executes locally."""

    def __init__(self, trainer, rank: int, world: int):
        self.trainer, self.rank, self.world = trainer, rank, world

    def _execute(self, cmd: str, arg):
        t = self.trainer
        if cmd == "forward_backward":
            return t.forward_backward(arg)
        if cmd == "optim_step":
            return t.optim_step(arg)
        if cmd == "zero_grad":
            return t.zero_grad()
        if cmd == "save":
            return t.save(*arg)
        if cmd == "load":
            return t.load(*arg)
        raise ValueError(f"unknown command {cmd}")

    def run(self, cmd: str, arg=None):
        if self.world > 1:
            dist.broadcast_object_list([(cmd, arg)], src=0)
        return self._execute(cmd, arg)

    def stop(self) -> None:
        if self.world > 1:
            dist.broadcast_object_list([("stop", None)], src=0)

    def follow(self) -> None:
        """Loop of ranks > 0: receive and execute until rank 0 says stop. A refused command (rank 0
        raised the same error and reported it to the client) leaves the loop running."""
        while True:
            box = [None]
            dist.broadcast_object_list(box, src=0)
            cmd, arg = box[0]
            if cmd == "stop":
                return
            try:
                self._execute(cmd, arg)
            except BadRequest:
                pass
