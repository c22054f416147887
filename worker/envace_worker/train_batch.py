"""Validation of training requests. Everything is checked before any tensor is touched, so a bad
request leaves weights, gradients and optimizer state exactly as they were."""
from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import BadRequest
from .losses import LOSS_FNS


@dataclass
class Sequence:
    token_ids: list
    loss_mask: list       # bool per token: token i is a target (predicted from tokens < i)
    advantages: list      # float per token
    sampling_logprobs: list | None
    # Weight of each of this sequence's target tokens in the step's loss (loss_agg_mode, computed by
    # the caller over the whole batch). None: the call is a token-mean over its own targets.
    weight: float | None = None


@dataclass
class LossSpec:
    fn: str = "cross_entropy"
    clip_low: float = 0.2
    clip_high: float = 0.2
    kl_coef: float = 0.0
    temperature: float = 1.0
    # Truncated importance sampling (sampler ≠ trainer, e.g. vLLM rollouts): PPO's old policy is the
    # trainer's own logprobs and each token's loss is weighted by min(π_trainer/π_sampler, tis_cap).
    tis_cap: float | None = None


@dataclass
class ForwardBackward:
    sequences: list
    loss: LossSpec
    num_targets: int      # masked tokens of the whole call: the token-mean denominator
    weighted: bool = False  # every sequence carries `weight`: loss = Σ weight · Σ token losses


def _num(x, what: str, finite: bool = True) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise BadRequest(f"{what} must be a number, got {type(x).__name__}")
    if finite and not math.isfinite(x):
        raise BadRequest(f"{what} must be finite, got {x}")
    return float(x)


def parse_loss(obj) -> LossSpec:
    if obj is None:
        obj = {}
    if not isinstance(obj, dict):
        raise BadRequest("loss must be an object")
    unknown = set(obj) - {"fn", "clip_low", "clip_high", "kl_coef", "temperature", "tis_cap"}
    if unknown:
        raise BadRequest(f"unknown loss field(s): {sorted(unknown)}")
    fn = obj.get("fn", "cross_entropy")
    if fn not in LOSS_FNS:
        raise BadRequest(f"unknown loss fn {fn!r}; expected one of {list(LOSS_FNS)}", code="unknown_loss")
    spec = LossSpec(fn=fn)
    for k in ("clip_low", "clip_high", "kl_coef", "temperature"):
        if obj.get(k) is not None:
            setattr(spec, k, _num(obj[k], f"loss.{k}"))
    if not (0 <= spec.clip_low < 1) or spec.clip_high < 0:
        raise BadRequest("loss.clip_low must be in [0, 1) and loss.clip_high >= 0")
    if spec.kl_coef < 0:
        raise BadRequest("loss.kl_coef must be >= 0")
    if spec.temperature <= 0:
        raise BadRequest("loss.temperature must be > 0")
    if obj.get("tis_cap") is not None:
        spec.tis_cap = _num(obj["tis_cap"], "loss.tis_cap")
        if spec.tis_cap < 1:
            raise BadRequest("loss.tis_cap must be >= 1")
        if spec.fn == "cross_entropy":
            raise BadRequest("loss.tis_cap needs a policy-gradient loss (importance_sampling or ppo)")
    return spec


def parse_forward_backward(body, vocab_size: int, max_context: int, has_reference: bool) -> ForwardBackward:
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    loss = parse_loss(body.get("loss"))
    if loss.kl_coef > 0 and not has_reference:
        raise BadRequest("kl_coef > 0 needs a reference model (the worker was started without one)")
    seqs = body.get("sequences")
    if not isinstance(seqs, list) or not seqs:
        raise BadRequest("sequences must be a non-empty array")
    needs_old = loss.fn in ("importance_sampling", "ppo")
    out, total = [], 0
    for i, s in enumerate(seqs):
        where = f"sequences[{i}]"
        if not isinstance(s, dict):
            raise BadRequest(f"{where} must be an object")
        ids = s.get("token_ids")
        if not isinstance(ids, list) or len(ids) < 2:
            raise BadRequest(f"{where}.token_ids must be an array of at least 2 token ids")
        if len(ids) > max_context:
            raise BadRequest(f"{where} has {len(ids)} tokens, longer than the model's context ({max_context})",
                             code="context_length_exceeded")
        for t in ids:
            if isinstance(t, bool) or not isinstance(t, int) or not (0 <= t < vocab_size):
                raise BadRequest(f"{where}.token_ids holds {t!r}, not a token id in [0, {vocab_size})")
        n = len(ids)
        mask = s.get("loss_mask")
        if not isinstance(mask, list) or len(mask) != n:
            raise BadRequest(f"{where}.loss_mask must have one entry per token ({n}), got "
                             f"{len(mask) if isinstance(mask, list) else type(mask).__name__}")
        mask = [bool(_num(m, f"{where}.loss_mask")) for m in mask]
        if mask[0]:
            raise BadRequest(f"{where}.loss_mask[0] must be 0: the first token has no prediction")
        adv = s.get("advantages")
        if adv is None and loss.fn == "cross_entropy":
            adv = [0.0] * n
        if not isinstance(adv, list) or len(adv) != n:
            raise BadRequest(f"{where}.advantages must have one entry per token ({n}), got "
                             f"{len(adv) if isinstance(adv, list) else type(adv).__name__}")
        adv = [_num(a, f"{where}.advantages") for a in adv]
        old = s.get("sampling_logprobs")
        if needs_old and old is None:
            raise BadRequest(f"{where}.sampling_logprobs is required by loss {loss.fn!r}")
        if old is not None:
            if not isinstance(old, list) or len(old) != n:
                raise BadRequest(f"{where}.sampling_logprobs must have one entry per token ({n})")
            old = [_num(x, f"{where}.sampling_logprobs", finite=False) if x is not None else 0.0 for x in old]
            for j, (x, m) in enumerate(zip(old, mask)):
                if m and not (math.isfinite(x) and x <= 1e-6):
                    raise BadRequest(f"{where}.sampling_logprobs[{j}] = {x} is not a finite log-probability")
        weight = s.get("weight")
        if weight is not None:
            weight = _num(weight, f"{where}.weight")
            if weight < 0:
                raise BadRequest(f"{where}.weight must be >= 0")
        total += sum(mask)
        out.append(Sequence(ids, mask, adv, old, weight))
    if total == 0:
        raise BadRequest("no target tokens: every loss_mask is all zero")
    n_weighted = sum(1 for s in out if s.weight is not None)
    if 0 < n_weighted < len(out):
        raise BadRequest("give `weight` on every sequence of a call or on none")
    return ForwardBackward(out, loss, total, weighted=n_weighted > 0)


@dataclass
class OptimStep:
    lr: float
    weight_decay: float = 0.0
    max_grad_norm: float | None = None
    betas: tuple = (0.9, 0.999)
    eps: float = 1e-8


def parse_optim_step(body) -> OptimStep:
    if not isinstance(body, dict):
        raise BadRequest("request body must be a JSON object")
    unknown = set(body) - {"lr", "weight_decay", "max_grad_norm", "betas", "eps"}
    if unknown:
        raise BadRequest(f"unknown optim_step field(s): {sorted(unknown)}")
    if "lr" not in body:
        raise BadRequest("lr is required")
    o = OptimStep(lr=_num(body["lr"], "lr"))
    if o.lr < 0:
        raise BadRequest("lr must be >= 0")
    if body.get("weight_decay") is not None:
        o.weight_decay = _num(body["weight_decay"], "weight_decay")
    if body.get("max_grad_norm") is not None:
        o.max_grad_norm = _num(body["max_grad_norm"], "max_grad_norm")
        if o.max_grad_norm <= 0:
            raise BadRequest("max_grad_norm must be > 0 (omit it for no clipping)")
    if body.get("betas") is not None:
        b = body["betas"]
        if not isinstance(b, list) or len(b) != 2:
            raise BadRequest("betas must be [beta1, beta2]")
        o.betas = (_num(b[0], "betas[0]"), _num(b[1], "betas[1]"))
        if not all(0 <= x < 1 for x in o.betas):
            raise BadRequest("betas must be in [0, 1)")
    if body.get("eps") is not None:
        o.eps = _num(body["eps"], "eps")
    return o
