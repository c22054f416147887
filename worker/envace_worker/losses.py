"""Per-token policy losses and their aggregation.

Every function takes per-target-token tensors of the same shape (`_T`: the flattened masked
targets of one micro-batch) and returns the per-token loss; `weighted_sum` aggregates with one
weight per token (see there for what each aggregation mode does to long versus short responses).
"""
from __future__ import annotations

import torch

LOSS_FNS = ("cross_entropy", "importance_sampling", "ppo")


def cross_entropy(logp_T: torch.Tensor) -> torch.Tensor:
    """Negative log-likelihood of the targets (advantages are ignored)."""
    return -logp_T


def importance_sampling(logp_T, old_logp_T, adv_T) -> torch.Tensor:
    """REINFORCE with an importance weight p/q: loss = -(p/q) * A (gradient: -(p/q) A ∇log p)."""
    ratio_T = torch.exp(logp_T - old_logp_T)
    return -ratio_T * adv_T


def ppo(logp_T, old_logp_T, adv_T, clip_low: float, clip_high: float):
    """PPO-clip: -min(r A, clip(r, 1-clip_low, 1+clip_high) A). Returns (loss_T, clipped_T)."""
    ratio_T = torch.exp(logp_T - old_logp_T)
    unclipped_T = ratio_T * adv_T
    clipped_T = ratio_T.clamp(1.0 - clip_low, 1.0 + clip_high) * adv_T
    loss_T = -torch.minimum(unclipped_T, clipped_T)
    return loss_T, (clipped_T < unclipped_T)


def tis_weight(trainer_logp_T, sampler_logp_T, cap: float) -> torch.Tensor:
    """Truncated importance sampling weight min(π_trainer/π_sampler, cap) per token (no gradient):
    corrects for a sampler (e.g. vLLM) whose numerics or weights differ from the trainer's."""
    return torch.exp(trainer_logp_T - sampler_logp_T).clamp(max=cap)


def kl_k3(logp_T, ref_logp_T) -> torch.Tensor:
    """Low-variance KL(π‖π_ref) estimator (Schulman's k3): exp(ref-logp) - (ref-logp) - 1 ≥ 0."""
    d_T = ref_logp_T - logp_T
    return torch.exp(d_T) - d_T - 1.0


def weighted_sum(loss_T: torch.Tensor, w_T: torch.Tensor) -> torch.Tensor:
    """Σ w_T · loss_T. The caller's weights implement the aggregation (verl's `loss_agg_mode`):
    token-mean: w = 1/(targets in the batch), so a long response weighs in proportion to its length;
    seq-mean-token-mean: w = 1/(rows × the row's targets), so every row weighs the same and each
    token of a long response weighs less; seq-mean-token-sum: w = 1/rows, so a long response weighs
    more than a short one by its length (no per-token normalisation)."""
    return (w_T * loss_T).sum()
