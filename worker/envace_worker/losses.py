"""Per-token policy losses and their aggregation.

Every function takes per-target-token tensors of the same shape (`_T`: the flattened masked
targets of one micro-batch) and returns the per-token loss; `token_sum` aggregates. The caller
divides by the number of masked tokens of the whole call (across micro-batches and ranks), i.e.
token-mean aggregation: every token weighs the same, so a long response contributes in proportion
to its length (unlike sequence-mean, which would down-weight each token of a long response).
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


def kl_k3(logp_T, ref_logp_T) -> torch.Tensor:
    """Low-variance KL(π‖π_ref) estimator (Schulman's k3): exp(ref-logp) - (ref-logp) - 1 ≥ 0."""
    d_T = ref_logp_T - logp_T
    return torch.exp(d_T) - d_T - 1.0


def token_sum(loss_T: torch.Tensor) -> torch.Tensor:
    """Sum over tokens; divided by the call's total masked-token count for token-mean."""
    return loss_T.sum()
