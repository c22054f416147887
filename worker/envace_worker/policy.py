"""What the trainer differentiates: the policy as a module that maps a padded batch to the
log-probabilities of its target tokens, plus its frozen reference and optimizer-state I/O.

`PlainPolicy` trains the model the server samples from, in place: one process, or (`--parallel
ddp`) torch's DistributedDataParallel where every rank holds the whole model. `ShardedPolicy`
(fsdp.py) trains an FSDP-sharded copy and publishes its weights to the sampling copy after every
step. All name optimizer state by parameter name (not position), so a checkpoint written under one
loads under another.

`lockstep` policies run a collective in every backward pass, so every rank must run the same number
of them (the trainer pads with zero-weight micro-batches). Their collectives average gradients over
ranks while the per-rank losses are shares of one token-mean that must add up: `loss_scale` (the
world size) undoes the average on any backend (gloo has no pre-multiplied sum, and the divide-factor
APIs differ across torch versions).
"""
from __future__ import annotations

import inspect
from contextlib import contextmanager

import torch


def _backbone_and_head(model):
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return base.get_decoder(), base.get_output_embeddings()


class TargetLogprobs(torch.nn.Module):
    """log p(target) for the masked positions only: logits are computed for the T targets instead of
    all B*L positions (the vocabulary dominates memory for small models). A module of its own so that
    FSDP's root hooks see one forward call that uses every parameter."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, ids_BL, tmask_BT, targets_T, temperature: float):
        backbone, head = _backbone_and_head(self.model)
        h_BLH = backbone(input_ids=ids_BL).last_hidden_state
        h_TH = h_BLH[:, :-1][tmask_BT]
        logits_TV = head(h_TH).float() / temperature
        return logits_TV.gather(1, targets_T[:, None]).squeeze(1) - torch.logsumexp(logits_TV, dim=-1)


def named_optimizer_state(module: torch.nn.Module, opt: torch.optim.Optimizer) -> dict:
    """`opt.state_dict()` keyed by parameter name: the layout torch's distributed
    `get_optimizer_state_dict(..., full_state_dict=True)` gives for the same module."""
    names = {id(p): n for n, p in module.named_parameters()}
    order = [names[id(p)] for g in opt.param_groups for p in g["params"]]
    sd = opt.state_dict()
    return {"state": {order[i]: s for i, s in sd["state"].items()},
            "param_groups": [{**g, "params": [order[i] for i in g["params"]]} for g in sd["param_groups"]]}


def load_named_optimizer_state(module: torch.nn.Module, opt: torch.optim.Optimizer, named: dict) -> None:
    if all(isinstance(k, int) for k in named["state"]) and all(
            isinstance(i, int) for g in named["param_groups"] for i in g["params"]):
        opt.load_state_dict(named)  # a positional state dict (checkpoints written before names were used)
        return
    names = {id(p): n for n, p in module.named_parameters()}
    order = [names[id(p)] for g in opt.param_groups for p in g["params"]]
    index = {n: i for i, n in enumerate(order)}
    missing = [n for g in named["param_groups"] for n in g["params"] if n not in index]
    if missing:
        raise ValueError(f"optimizer state names parameters this model lacks: {missing[:3]}")
    opt.load_state_dict({"state": {index[n]: s for n, s in named["state"].items()},
                         "param_groups": [{**g, "params": [index[n] for n in g["params"]]}
                                          for g in named["param_groups"]]})


class PlainPolicy:
    """The sampling model itself is trained; with `ddp`, through a DistributedDataParallel wrapper
    that all-reduces gradients during each backward."""

    def __init__(self, host, ddp_world: int = 1):
        self.host = host
        self._inner = TargetLogprobs(host.model)   # parameter names: the same as FSDP's root
        self._ref = TargetLogprobs(host.ref_model) if host.ref_model is not None else None
        self.mode = "ddp" if ddp_world > 1 else "none"
        self.lockstep = ddp_world > 1
        self.loss_scale = float(ddp_world)
        if ddp_world > 1:
            from torch.nn.parallel import DistributedDataParallel

            cuda = host.device.type == "cuda"
            # buffers (rotary tables) are constants: no need to sync them before every forward
            # (newer torch names the switch forward_sync_buffers and deprecates broadcast_buffers)
            sync = ("forward_sync_buffers" if "forward_sync_buffers" in
                    inspect.signature(DistributedDataParallel.__init__).parameters else "broadcast_buffers")
            self.module = DistributedDataParallel(self._inner, device_ids=[host.device.index] if cuda else None,
                                                  **{sync: False})
        else:
            self.module = self._inner

    def trainable_parameters(self) -> list:
        return [p for p in self._inner.parameters() if p.requires_grad]

    @contextmanager
    def reference(self):
        """Yields the frozen reference's logprob module: the model with adapters disabled under
        LoRA, else the copy of the starting weights."""
        if self.host.lora:
            with self.host.model.disable_adapter():
                yield self._inner   # not through DDP: the reference has no backward to synchronise
        elif self._ref is not None:
            yield self._ref
        else:
            raise RuntimeError("no reference model (started with kl_reference disabled)")

    def weights_changed(self) -> None:
        """After an optimizer step: nothing to do, the sampling model is the trained one."""

    def loads_weights_here(self) -> bool:
        return True

    def weights_loaded(self) -> None:
        """After `load` wrote the checkpoint into the host model."""

    def optimizer_state(self, opt) -> dict:
        return named_optimizer_state(self._inner, opt)

    def load_optimizer_state(self, opt, named: dict) -> None:
        load_named_optimizer_state(self._inner, opt, named)
