"""Each loss against hand-computed values on a 2-token toy; PPO clipping at both bounds; token-mean."""
import math

import pytest
import torch

from envace_worker import losses
from envace_worker.train_batch import parse_forward_backward
from envace_worker.trainer import Trainer

LOGP = torch.tensor([math.log(0.5), math.log(0.25)])
OLD = torch.tensor([math.log(0.4), math.log(0.5)])   # ratios 1.25 and 0.5
ADV = torch.tensor([1.0, -2.0])


def test_cross_entropy_hand_computed():
    assert losses.cross_entropy(LOGP).mean().item() == pytest.approx((math.log(2) + math.log(4)) / 2)


def test_importance_sampling_hand_computed():
    # -(1.25 * 1), -(0.5 * -2) -> mean (-1.25 + 1) / 2
    assert losses.importance_sampling(LOGP, OLD, ADV).mean().item() == pytest.approx(-0.125)


def test_ppo_clips_at_both_bounds():
    logp = LOGP.clone().requires_grad_(True)
    loss_T, clipped_T = losses.ppo(logp, OLD, ADV, clip_low=0.2, clip_high=0.2)
    # token 0: r = 1.25 > 1.2 with A > 0 -> clipped at the upper bound: -1.2
    # token 1: r = 0.5 < 0.8 with A < 0 -> clipped at the lower bound: -(0.8 * -2) = 1.6
    assert loss_T.tolist() == pytest.approx([-1.2, 1.6])
    assert clipped_T.tolist() == [True, True]
    loss_T.sum().backward()
    assert logp.grad.tolist() == [0.0, 0.0]  # clipped tokens give no gradient
    # inside the range the unclipped term wins and the gradient is -r*A
    logp2 = torch.tensor([math.log(0.4)], requires_grad=True)
    l2, c2 = losses.ppo(logp2, OLD[:1], ADV[:1], 0.2, 0.2)
    l2.sum().backward()
    assert l2.item() == pytest.approx(-1.0) and not c2.item() and logp2.grad.item() == pytest.approx(-1.0)
    # asymmetric bounds: clip_high 0.3 lets r = 1.25 through
    l3, c3 = losses.ppo(LOGP[:1], OLD[:1], ADV[:1], 0.2, 0.3)
    assert l3.item() == pytest.approx(-1.25) and not c3.item()


def test_kl_k3_is_zero_at_equality_and_positive_otherwise():
    assert losses.kl_k3(LOGP, LOGP).tolist() == [0.0, 0.0]
    d = OLD - LOGP
    assert losses.kl_k3(LOGP, OLD).tolist() == pytest.approx((torch.exp(d) - d - 1).tolist())
    assert (losses.kl_k3(LOGP, OLD) > 0).all()


def _tf_logp(host, ids, T=1.0):
    with torch.no_grad():
        lg = host.model(torch.tensor([ids])).logits[0].float() / T
    lp = torch.log_softmax(lg, -1)
    return [lp[i - 1, ids[i]].item() for i in range(1, len(ids))]


@pytest.mark.parametrize("fn", ["cross_entropy", "importance_sampling", "ppo"])
def test_worker_loss_on_two_token_sequence(make_host, fn):
    host = make_host()
    tr = Trainer(host)
    ids = [5, 9]
    lp = _tf_logp(host, ids, T=0.7)[0]
    old = lp - math.log(1.5)   # ratio 1.5: above the PPO bound 1.2
    adv = 2.0
    body = {"sequences": [{"token_ids": ids, "loss_mask": [0, 1], "advantages": [0, adv],
                           "sampling_logprobs": [0, old]}],
            "loss": {"fn": fn, "clip_low": 0.2, "clip_high": 0.2, "temperature": 0.7}}
    out = tr.forward_backward(parse_forward_backward(body, host.base.config.vocab_size, 4096, True))
    want = {"cross_entropy": -lp, "importance_sampling": -1.5 * adv, "ppo": -1.2 * adv}[fn]
    assert out["loss"] == pytest.approx(want, abs=1e-5)


def test_token_mean_over_all_masked_tokens_of_the_call(make_host):
    host = make_host()
    tr = Trainer(host)
    a, b = [3, 4, 5, 6, 7, 8], [9, 10]
    la, lb = _tf_logp(host, a), _tf_logp(host, b)
    body = {"sequences": [{"token_ids": a, "loss_mask": [0, 1, 1, 1, 1, 1]},
                          {"token_ids": b, "loss_mask": [0, 1]}], "loss": {"fn": "cross_entropy"}}
    out = tr.forward_backward(parse_forward_backward(body, host.base.config.vocab_size, 4096, True))
    token_mean = -(sum(la) + sum(lb)) / 6
    seq_mean = -(sum(la) / 5 + sum(lb)) / 2
    assert out["loss"] == pytest.approx(token_mean, abs=1e-5)
    assert abs(token_mean - seq_mean) > 1e-3
    assert out["metrics"]["num_tokens"] == 6


def test_kl_term_is_zero_before_any_update(make_host):
    host = make_host()
    tr = Trainer(host)
    body = {"sequences": [{"token_ids": [3, 4, 5], "loss_mask": [0, 1, 1]}],
            "loss": {"fn": "cross_entropy", "kl_coef": 0.5}}
    out = tr.forward_backward(parse_forward_backward(body, host.base.config.vocab_size, 4096, True))
    assert out["metrics"]["kl"] == pytest.approx(0.0, abs=1e-7)
