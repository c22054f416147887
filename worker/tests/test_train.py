"""Overfitting, save/load round trip and exact resume, LoRA, non-finite steps."""

import pytest
import torch

from conftest import weights_of
from envace_worker.train_batch import parse_forward_backward, parse_optim_step
from envace_worker.trainer import Trainer


def _fb(tr, seqs, **loss):
    h = tr.host
    body = {"sequences": seqs, "loss": {"fn": "cross_entropy", **loss}}
    return tr.forward_backward(parse_forward_backward(body, h.base.config.vocab_size, h.max_context, True))


def _seq(host, text="cancel my order #W1234 please, the total is 12.50"):
    ids = host.tokenizer(text)["input_ids"]
    return {"token_ids": ids, "loss_mask": [0] + [1] * (len(ids) - 1), "advantages": [1.0] * len(ids)}


def _step(tr, lr=1e-2):
    return tr.optim_step(parse_optim_step({"lr": lr, "max_grad_norm": 1.0, "weight_decay": 0.01}))


def test_thirty_cross_entropy_steps_cut_the_loss_by_ninety_percent(make_host):
    host = make_host()
    tr = Trainer(host)
    seq = _seq(host)
    first = _fb(tr, [seq])["loss"]
    _step(tr)
    for _ in range(29):
        _fb(tr, [seq])
        _step(tr)
    last = _fb(tr, [seq])["loss"]
    assert last < 0.1 * first, (first, last)


def test_save_load_round_trip_and_exact_resume(make_host, tmp_path):
    seqs = [_seq(make_host()), _seq(make_host(), "find user alice@example.com address shipped")]

    def run(tr, steps):
        for _ in range(steps):
            _fb(tr, seqs)
            _step(tr)

    a = Trainer(make_host())
    run(a, 6)                                    # uninterrupted: 6 steps

    b = Trainer(make_host())
    run(b, 3)
    ck = str(tmp_path / "ck")
    b.save(ck, optimizer=True)
    before = _fb(b, seqs)["loss"]
    b.zero_grad()

    c = Trainer(make_host())                     # a fresh process' worth of state
    c.load(ck, optimizer=True)
    assert c.step == 3
    assert _fb(c, seqs)["loss"] == before        # logprobs reproduced exactly
    c.zero_grad()
    run(c, 3)
    wa, wc = weights_of(a.host.model), weights_of(c.host.model)
    assert all(torch.equal(wa[k], wc[k]) for k in wa)   # bit-for-bit


def test_load_missing_path_is_rejected_without_change(make_host, tmp_path):
    from envace_worker.errors import BadRequest

    tr = Trainer(make_host())
    with pytest.raises(BadRequest) as e:
        tr.check_loadable(str(tmp_path / "nope"), True)
    assert e.value.status == 404


def test_lora_changes_only_adapter_weights(make_host, tmp_path):
    host = make_host(lora_rank=4)
    tr = Trainer(host)
    before = weights_of(host.model)
    _fb(tr, [_seq(host)])
    _step(tr, lr=5e-2)
    _fb(tr, [_seq(host)], kl_coef=0.1)           # reference = adapters disabled
    _step(tr, lr=5e-2)
    after = weights_of(host.model)
    changed = [k for k in before if not torch.equal(before[k], after[k])]
    assert changed and all("lora_" in k for k in changed)
    assert any("lora_A" in k for k in changed) and any("lora_B" in k for k in changed)
    tr.save(str(tmp_path / "ad"), optimizer=True)
    import os
    assert os.path.exists(tmp_path / "ad" / "adapter_model.safetensors")
    assert os.path.exists(tmp_path / "ad" / "adapter_config.json")
    h2 = make_host(lora_rank=4)
    t2 = Trainer(h2)
    t2.load(str(tmp_path / "ad"), optimizer=True)
    w2 = weights_of(h2.model)
    assert all(torch.equal(after[k], w2[k]) for k in after)


def test_non_finite_loss_skips_the_step_and_keeps_weights(make_host):
    host = make_host()
    tr = Trainer(host)
    seq = _seq(host)
    before = weights_of(host.model)
    seq = dict(seq, sampling_logprobs=[-1000.0] * len(seq["token_ids"]))   # ratio exp(~1000) = inf
    out = _fb(tr, [seq], fn="importance_sampling")
    assert out["loss"] is None and out["nonfinite"]
    res = _step(tr)
    assert res["skipped"] and "non-finite" in res["reason"] and res["step"] == 0
    after = weights_of(host.model)
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert all(p.grad is None for p in host.model.parameters())


def test_optim_step_without_gradients_is_skipped(make_host):
    tr = Trainer(make_host())
    r = _step(tr)
    assert r["skipped"] and r["step"] == 0
