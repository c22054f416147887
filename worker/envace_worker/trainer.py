"""forward_backward / optim_step / save / load on one process's copy of the model.

Data parallel: every rank runs the same command; forward_backward takes this rank's share of the
sequences and divides by the *whole call's* target count, so summing gradients over ranks gives
exactly the single-process gradient. DDP all-reduces and FSDP reduce-scatters them during each
backward (policy.py, fsdp.py); both need every rank to run the same number of backward passes.
"""
from __future__ import annotations

import json
import os
import random
import shutil

import torch
import torch.distributed as dist

from . import checkpoint_weights, losses, trainer_state
from .errors import BadRequest
from .policy import PlainPolicy
from .train_batch import ForwardBackward, OptimStep

STATE_FILE = trainer_state.JSON_FILE


def shard(items: list, rank: int, world: int) -> list:
    """Contiguous, near-equal split (rank r gets items[r*k : ...])."""
    k, rem = divmod(len(items), world)
    start = rank * k + min(rank, rem)
    return items[start:start + k + (1 if rank < rem else 0)]


def micro_batches(seqs: list, max_tokens: int) -> list:
    """Groups sequences (sorted by length, to waste little padding) so that each padded batch has at
    most max_tokens tokens (a longer single sequence gets a batch of its own)."""
    order = sorted(range(len(seqs)), key=lambda i: len(seqs[i].token_ids))
    out, cur, cur_len = [], [], 0
    for i in order:
        n = len(seqs[i].token_ids)
        if cur and max(cur_len, n) * (len(cur) + 1) > max_tokens:
            out.append(cur)
            cur, cur_len = [], 0
        cur.append(seqs[i])
        cur_len = max(cur_len, n)
    if cur:
        out.append(cur)
    return out


def _dummy_micro_batch(device):
    """One target of weight zero: lets a rank with nothing (left) to do still take part in the
    collectives of DDP's and FSDP's backward, so that every rank runs as many passes as the others."""
    ids = torch.zeros((1, 2), dtype=torch.long, device=device)
    tmask = torch.ones((1, 1), dtype=torch.bool, device=device)
    zero = torch.zeros(1, device=device)
    return ids, tmask, zero, zero, zero, torch.full((1,), -1, dtype=torch.long, device=device)


class SequenceStats:
    """Per-sequence PPO ratio statistics (indexed like the request's sequences), summed, min-ed and
    max-ed over ranks, so the caller can report them per role."""

    def __init__(self, n: int, device):
        self.sums = torch.zeros((n, 3), dtype=torch.float64, device=device)  # tokens, ratio sum, clipped
        self.rmin = torch.full((n,), float("inf"), dtype=torch.float64, device=device)
        self.rmax = torch.full((n,), float("-inf"), dtype=torch.float64, device=device)

    def add(self, seq_T, ratio_T, clipped_T) -> None:
        keep = seq_T >= 0                       # the dummy micro-batch's token has index -1
        seq_T, ratio_T = seq_T[keep], ratio_T[keep].double()
        self.sums[:, 0].index_add_(0, seq_T, torch.ones_like(ratio_T))
        self.sums[:, 1].index_add_(0, seq_T, ratio_T)
        if clipped_T is not None:
            self.sums[:, 2].index_add_(0, seq_T, clipped_T[keep].double())
        self.rmin.scatter_reduce_(0, seq_T, ratio_T, reduce="amin")
        self.rmax.scatter_reduce_(0, seq_T, ratio_T, reduce="amax")

    def reduce(self) -> None:
        dist.all_reduce(self.sums)
        dist.all_reduce(self.rmin, op=dist.ReduceOp.MIN)
        dist.all_reduce(self.rmax, op=dist.ReduceOp.MAX)

    def rows(self) -> list:
        out = []
        for i in range(self.sums.shape[0]):
            n = int(self.sums[i, 0].item())
            if n == 0:
                out.append({"tokens": 0, "ratio_mean": None, "ratio_min": None, "ratio_max": None, "clipped": 0})
                continue
            out.append({"tokens": n, "ratio_mean": self.sums[i, 1].item() / n, "ratio_min": self.rmin[i].item(),
                        "ratio_max": self.rmax[i].item(), "clipped": int(self.sums[i, 2].item())})
        return out


class Trainer:
    def __init__(self, host, rank: int = 0, world: int = 1, micro_batch_tokens: int = 8192, policy=None):
        self.host = host
        self.rank, self.world = rank, world
        self.micro_batch_tokens = micro_batch_tokens
        self.policy = policy if policy is not None else PlainPolicy(host, ddp_world=world)
        self.params = self.policy.trainable_parameters()
        self.opt = torch.optim.AdamW(self.params, lr=0.0, weight_decay=0.0)
        self.step = 0
        self.accumulated = 0          # forward_backward calls since the last step
        self.poisoned = None          # reason when a non-finite loss was seen since the last step

    # ---------------------------------------------------------------- forward_backward
    def _micro_batch_tensors(self, mb, device, index_of: dict, token_weight: dict):
        """Padded (ids, target mask, advantages, old logprobs, per-target weight, per-target sequence
        index) of one micro-batch, or None when it has no target token."""
        L = max(len(s.token_ids) for s in mb)
        ids = torch.zeros((len(mb), L), dtype=torch.long)
        tmask = torch.zeros((len(mb), L - 1), dtype=torch.bool)
        adv = torch.zeros((len(mb), L - 1), dtype=torch.float32)
        old = torch.zeros((len(mb), L - 1), dtype=torch.float32)
        w = torch.zeros((len(mb), L - 1), dtype=torch.float32)
        seq = torch.zeros((len(mb), L - 1), dtype=torch.long)
        for b, s in enumerate(mb):
            n = len(s.token_ids)
            ids[b, :n] = torch.tensor(s.token_ids)
            tmask[b, :n - 1] = torch.tensor(s.loss_mask[1:])
            adv[b, :n - 1] = torch.tensor(s.advantages[1:])
            if s.sampling_logprobs is not None:
                old[b, :n - 1] = torch.tensor(s.sampling_logprobs[1:])
            w[b, :] = token_weight[id(s)]
            seq[b, :] = index_of[id(s)]
        if not tmask.any():
            return None
        ids, tmask = ids.to(device), tmask.to(device)
        return (ids, tmask, adv.to(device)[tmask], old.to(device)[tmask], w.to(device)[tmask],
                seq.to(device)[tmask])

    def forward_backward(self, fb: ForwardBackward) -> dict:
        """Accumulates the gradient of Σ_tokens w_T · loss_T, where loss_T is the policy term plus
        kl_coef · KL. w_T is the sequence's `weight` when the caller gives one (its loss aggregation
        over the whole step, so how the batch is split into calls changes nothing), else 1 / the
        call's target count (a token-mean over this call). The KL term gets the same weights as the
        policy term, so the KL coefficient means the same whatever the packing."""
        spec = fb.loss
        device = self.host.device
        index_of = {id(s): i for i, s in enumerate(fb.sequences)}
        token_weight = {id(s): (s.weight if fb.weighted else 1.0 / fb.num_targets) for s in fb.sequences}
        mine = shard(fb.sequences, self.rank, self.world)
        batches = [t for t in (self._micro_batch_tensors(mb, device, index_of, token_weight)
                               for mb in micro_batches(mine, self.micro_batch_tokens)) if t is not None]
        if self.policy.lockstep:
            count = torch.tensor([len(batches)], dtype=torch.long, device=device)
            dist.all_reduce(count, op=dist.ReduceOp.MAX)
            batches += [_dummy_micro_batch(device)] * (int(count.item()) - len(batches))
        stats = SequenceStats(len(fb.sequences), device) if spec.fn != "cross_entropy" else None
        # sums: loss, clipped tokens, kl, ratio, nll, non-finite flag; summed over ranks for the metrics
        # 6, 7: TIS weight sum and capped count
        sums = torch.zeros(8, dtype=torch.float64, device=device)   # NCCL reduces device tensors only
        nonfinite = False
        for ids, tmask, adv_T, old_T, w_T, seq_T in batches:
            real_T = (seq_T >= 0).double()         # 0 for the dummy micro-batch's token
            targets_T = ids[:, 1:][tmask]
            logp_T = self.policy.module(ids, tmask, targets_T, spec.temperature)
            clipped_T = None
            sampler_T = old_T
            tis_T = None
            if spec.tis_cap is not None:
                # the trainer's own logprobs are the old policy (one update per batch); the sampler's
                # mismatch is corrected by a capped importance weight instead
                tis_T, old_T = losses.tis_weight(logp_T.detach(), sampler_T, spec.tis_cap), logp_T.detach()
                sums[6] += (real_T * tis_T.double()).sum().item()
                sums[7] += (real_T * (tis_T >= spec.tis_cap).double()).sum().item()
            if spec.fn == "cross_entropy":
                loss_T = losses.cross_entropy(logp_T)
            elif spec.fn == "importance_sampling":
                loss_T = losses.importance_sampling(logp_T, old_T, adv_T)
            else:
                loss_T, clipped_T = losses.ppo(logp_T, old_T, adv_T, spec.clip_low, spec.clip_high)
                sums[1] += (real_T * clipped_T.double()).sum().item()
            if tis_T is not None:
                loss_T = tis_T * loss_T
            if spec.kl_coef > 0:
                with torch.no_grad(), self.policy.reference() as ref:
                    ref_T = ref(ids, tmask, targets_T, spec.temperature)
                kl_T = losses.kl_k3(logp_T, ref_T)
                loss_T = loss_T + spec.kl_coef * kl_T
                sums[2] += (real_T * kl_T.detach().double()).sum().item()
            total = losses.weighted_sum(loss_T, w_T)
            if not torch.isfinite(total):
                nonfinite = True
                if not self.policy.lockstep:
                    break
                # DDP/FSDP: the backward still runs (its collectives must); optim_step discards the step
            (total * self.policy.loss_scale).backward()
            if nonfinite:
                continue
            sums[0] += total.item()
            if stats is not None:
                ratio_T = torch.exp(logp_T.detach() - sampler_T)   # trainer / sampler
                sums[3] += (real_T * ratio_T.double()).sum().item()
                stats.add(seq_T, ratio_T, clipped_T)
            sums[4] += (real_T * (-logp_T.detach()).double()).sum().item()
        sums[5] = 1.0 if nonfinite else 0.0
        if self.world > 1:
            dist.all_reduce(sums)
            if stats is not None:
                stats.reduce()
        self.accumulated += 1
        n = fb.num_targets
        if sums[5] > 0:
            self.poisoned = "non-finite loss in forward_backward"
        metrics = {"num_tokens": n, "num_sequences": len(fb.sequences), "nll": sums[4].item() / n,
                   "accumulated_calls": self.accumulated}
        if spec.fn != "cross_entropy":
            metrics["ratio_mean"] = sums[3].item() / n
        if spec.fn == "ppo":
            metrics["clip_fraction"] = sums[1].item() / n
        if spec.kl_coef > 0:
            metrics["kl"] = sums[2].item() / n
        if spec.tis_cap is not None:
            metrics["tis_weight_mean"] = sums[6].item() / n
            metrics["tis_capped_fraction"] = sums[7].item() / n
        out = {"metrics": metrics}
        if stats is not None:
            out["sequence_metrics"] = stats.rows()
        if sums[5] > 0:
            return {"loss": None, "nonfinite": True, **out}
        # the loss this call added to the step's objective (token-mean of the call when unweighted)
        return {"loss": sums[0].item(), **out}

    # ---------------------------------------------------------------- optim_step
    def zero_grad(self) -> dict:
        self.opt.zero_grad(set_to_none=True)
        self.accumulated, self.poisoned = 0, None
        return {"step": self.step}

    def optim_step(self, o: OptimStep) -> dict:
        if self.accumulated == 0:
            return {"step": self.step, "grad_norm": None, "skipped": True,
                    "reason": "no gradients accumulated: call forward_backward first"}
        if self.poisoned:
            reason = self.poisoned
            self.zero_grad()
            return {"step": self.step, "grad_norm": None, "skipped": True, "reason": reason}
        grads = [p for p in self.params if p.grad is not None]
        max_norm = o.max_grad_norm if o.max_grad_norm is not None else float("inf")
        norm = torch.nn.utils.clip_grad_norm_(grads, max_norm)
        norm = (norm.full_tensor() if hasattr(norm, "full_tensor") else norm).item()  # FSDP: a DTensor
        if not torch.isfinite(torch.tensor(norm)):
            self.zero_grad()
            return {"step": self.step, "grad_norm": None, "skipped": True, "reason": "non-finite gradient norm"}
        for g in self.opt.param_groups:
            g["lr"], g["weight_decay"], g["betas"], g["eps"] = o.lr, o.weight_decay, o.betas, o.eps
        self.opt.step()
        self.policy.weights_changed()
        self.step += 1
        self.zero_grad()
        return {"step": self.step, "grad_norm": norm, "skipped": False}

    # ---------------------------------------------------------------- save / load
    def save(self, path: str, optimizer: bool = True) -> dict:
        err = None
        opt_state = self.policy.optimizer_state(self.opt) if optimizer else None  # FSDP: a collective
        if self.rank == 0:
            try:
                self._write(path, opt_state)
            except OSError as e:  # e.g. an unwritable path: the caller's input, reported as 400
                err = e
        if self.world > 1:
            dist.barrier()  # reached even when rank 0 failed, so the other ranks never hang here
        if err is not None:
            raise BadRequest(f"could not save to {path}: {err}", code="save_failed")
        return {"path": path, "step": self.step, "optimizer": optimizer}

    def _write(self, path: str, opt_state: dict | None) -> None:
        """Writes the checkpoint into a fresh sibling directory and renames it into place, so that a
        worker killed mid-save leaves either the previous complete checkpoint at `path` or none,
        never new weights beside an old optimizer state."""
        path = os.path.normpath(path)
        tmp = f"{path}.saving-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        try:
            self._write_into(tmp, path, opt_state)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise

    def _write_into(self, tmp: str, path: str, opt_state: dict | None) -> None:
        self.host.model.save_pretrained(tmp)   # the sampling model: up to date after every step
        self.host.tokenizer.save_pretrained(tmp)
        optimizer = opt_state is not None
        if optimizer:
            trainer_state.write(tmp, opt_state, self.step, torch.get_rng_state(), random.getstate())
        with open(os.path.join(tmp, "envace_worker.json"), "w") as f:
            json.dump({"step": self.step, "lora": self.host.lora, "optimizer": optimizer}, f)
        if os.path.isdir(path):
            old = f"{path}.replaced-{os.getpid()}"
            shutil.rmtree(old, ignore_errors=True)
            os.rename(path, old)
            os.rename(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            os.rename(tmp, path)

    def check_loadable(self, path: str, optimizer: bool) -> None:
        """Raises BadRequest (before anything changes) when `path` is not a checkpoint of this model."""
        if not os.path.isdir(path):
            raise BadRequest(f"no checkpoint directory at {path}", code="not_found", status=404)
        want = "adapter_model.safetensors" if self.host.lora else "config.json"
        if not os.path.exists(os.path.join(path, want)):
            raise BadRequest(f"{path} has no {want}: not a {'LoRA adapter' if self.host.lora else 'model'} "
                             "checkpoint of this worker")
        if optimizer and not trainer_state.exists(path):
            raise BadRequest(f"{path} has no optimizer state ({STATE_FILE}); load with optimizer: false")

    def _param_shapes(self) -> dict:
        """Trainable parameters by the names the optimizer state uses, with their (global) shapes."""
        module = getattr(self.policy, "_inner", None)
        module = module if module is not None else self.policy.module
        return {n: tuple(p.shape) for n, p in module.named_parameters() if p.requires_grad}

    def _read_checkpoint(self, path: str, optimizer: bool):
        """Everything a load needs, read and validated, nothing applied: (apply_weights | None, state | None)."""
        apply_weights = checkpoint_weights.read(self.host, path) if self.policy.loads_weights_here() else None
        state = trainer_state.read(path, self._param_shapes()) if optimizer else None
        return apply_weights, state

    def load(self, path: str, optimizer: bool = True) -> dict:
        """Atomic: the checkpoint is read and checked completely (on every rank) before the weights,
        optimizer, step or RNG change; a failed load leaves all of them as they were."""
        err = None
        try:
            apply_weights, state = self._read_checkpoint(path, optimizer)
        except BadRequest as e:
            err = e
        except Exception as e:   # noqa: BLE001  checked loadable, yet unreadable (corrupt, other model)
            err = BadRequest(f"could not load {path}: {type(e).__name__}: {e}", code="load_failed")
        if self.world > 1:   # every rank learns whether the read worked before any collective depends on it
            flag = torch.tensor([0 if err is None else 1], device=self.host.device)
            dist.all_reduce(flag, op=dist.ReduceOp.MAX)
            failed = bool(flag.item())
        else:
            failed = err is not None
        if failed:
            raise err if err is not None else BadRequest(f"could not load {path}: failed on another rank",
                                                         code="load_failed")
        if apply_weights is not None:
            apply_weights()
        self.policy.weights_loaded()
        self.zero_grad()
        if state is not None:
            self.policy.load_optimizer_state(self.opt, state.optimizer)
            self.step = int(state.step)
            torch.set_rng_state(state.torch_rng)
            random.setstate(state.python_rng)
        if self.world > 1:
            dist.barrier()
        return {"path": path, "step": self.step, "optimizer": optimizer}
