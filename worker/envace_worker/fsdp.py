"""FSDP training (`--parallel fsdp`): parameters, gradients and optimizer state are sharded over the
ranks with torch's `fully_shard` (FSDP2), one group per decoder layer plus a root group.

Sampling stays on rank 0 and needs whole weights, so rank 0 keeps the model it loaded as a separate,
unsharded sampling copy; after every optimizer step (and every load) the sharded trainable weights
are gathered into it (`publish`), the way RL systems sync an FSDP actor into their rollout engine.
The other ranks shard the loaded model in place and hold only their shards. The reference model for
the KL term is sharded too.

Every collective must be reached by every rank in the same order: the trainer runs the same number
of micro-batches on each rank (padding with zero-weight ones), and nothing here branches on rank
except the copy into the sampling model.
"""
from __future__ import annotations

import copy
from contextlib import contextmanager

import torch
import torch.distributed as dist

from .policy import TargetLogprobs, load_named_optimizer_state, named_optimizer_state


def _fully_shard():
    try:
        from torch.distributed.fsdp import fully_shard  # torch >= 2.6
    except ImportError:
        try:
            from torch.distributed._composable.fsdp import fully_shard  # torch 2.4, 2.5
        except ImportError as e:
            raise RuntimeError(f"--parallel fsdp needs torch >= 2.4 (this is {torch.__version__}); "
                               "use --parallel ddp") from e
    return fully_shard


def _decoder_layers(model) -> list:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    layers = getattr(base.get_decoder(), "layers", None)
    return list(layers) if layers is not None else []


def _shard(model: torch.nn.Module, mesh) -> TargetLogprobs:
    fully_shard = _fully_shard()
    for layer in _decoder_layers(model):
        fully_shard(layer, mesh=mesh)
    root = TargetLogprobs(model)
    fully_shard(root, mesh=mesh)   # embeddings, final norm and (tied) head
    return root


class ShardedPolicy:
    mode = "fsdp"
    lockstep = True

    def __init__(self, host, rank: int, world: int):
        from torch.distributed.device_mesh import init_device_mesh

        self.host, self.rank, self.world = host, rank, world
        mesh = init_device_mesh(host.device.type, (world,))
        # rank 0 samples from host.model, so it trains a copy; the other ranks never sample
        train_model = copy.deepcopy(host.model) if rank == 0 else host.model
        self.module = _shard(train_model, mesh)
        self._ref = _shard(host.ref_model, mesh) if host.ref_model is not None else None
        self.loss_scale = float(world)   # FSDP averages gradients over ranks (see policy.py)

    def trainable_parameters(self) -> list:
        return [p for p in self.module.parameters() if p.requires_grad]

    @contextmanager
    def reference(self):
        if self.host.lora:
            with self.module.model.disable_adapter():
                yield self.module
        elif self._ref is not None:
            yield self._ref
        else:
            raise RuntimeError("no reference model (started with kl_reference disabled)")

    def _trainable_named(self):
        return [(n, p) for n, p in self.module.model.named_parameters() if p.requires_grad]

    @torch.no_grad()
    def weights_changed(self) -> None:
        """Gathers each trainable weight (a collective per parameter) into rank 0's sampling model."""
        target = dict(self.host.model.named_parameters()) if self.rank == 0 else None
        for name, p in self._trainable_named():
            full = p.full_tensor()
            if target is not None:
                target[name].copy_(full)

    def loads_weights_here(self) -> bool:
        """Only rank 0 reads a checkpoint's weights (into its sampling model); `weights_loaded`
        then scatters them to the shards."""
        return self.rank == 0

    @torch.no_grad()
    def weights_loaded(self) -> None:
        from torch.distributed.tensor import distribute_tensor

        source = dict(self.host.model.named_parameters()) if self.rank == 0 else None
        for name, p in self._trainable_named():
            full = source[name].detach().clone() if source is not None else torch.empty(
                p.shape, dtype=p.dtype, device=p.to_local().device)
            dist.broadcast(full, 0)
            p.to_local().copy_(distribute_tensor(full, p.device_mesh, p.placements).to_local())

    def optimizer_state(self, opt) -> dict:
        """The whole optimizer state keyed by parameter name, on rank 0 (a collective: every rank calls it)."""
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

        if not opt.state:
            # before the first step torch's API would create the state by taking a zero-lr step,
            # so that Adam's step count (its bias correction) would run one ahead of a single process
            return named_optimizer_state(self.module, opt)
        return get_optimizer_state_dict(self.module, opt,
                                        options=StateDictOptions(full_state_dict=True, cpu_offload=True))

    def load_optimizer_state(self, opt, named: dict) -> None:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_optimizer_state_dict

        if not named["state"]:   # saved before any step (same reason as above)
            load_named_optimizer_state(self.module, opt, named)
            return
        set_optimizer_state_dict(self.module, opt, optim_state_dict=named,
                                 options=StateDictOptions(full_state_dict=True))
