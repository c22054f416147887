"""Property-based requests (hypothesis) against every endpoint's schema: whatever JSON arrives, the
answer is a 2xx or a 4xx with an error code, never a 500, and a rejected request changes nothing
(weights, gradients, optimizer state, step). Bounded example counts keep it in the normal suite."""
import os

import pytest
import torch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import http_client, weights_of
from envace_worker.distributed import Commands
from envace_worker.model_thread import ModelThread
from envace_worker.server import Worker
from envace_worker.trainer import Trainer

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(min_value=-(2 ** 70), max_value=2 ** 70),
                      st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=12))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                             st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                          max_leaves=12)
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

MSGS = [{"role": "user", "content": "cancel #W1234"}]
BASES = {
    "/v1/chat/completions": {"messages": MSGS, "max_tokens": 2, "seed": 0},
    "/v1/tokenize": {"messages": MSGS},
    "/v1/train/forward_backward": {"sequences": [{"token_ids": [3, 4, 5], "loss_mask": [0, 1, 1],
                                                  "advantages": [0, 1, 1], "sampling_logprobs": [0, -1, -1]}],
                                   "loss": {"fn": "ppo"}},
    "/v1/train/optim_step": {"lr": 1e-3},
    "/v1/train/save": {"path": "ck", "optimizer": True},
}
KEYS = {
    "/v1/chat/completions": ["messages", "n", "temperature", "top_p", "max_tokens", "seed", "stop", "logprobs",
                             "top_logprobs", "tools", "stream", "return_token_ids"],
    "/v1/tokenize": ["messages", "tools", "add_generation_prompt"],
    "/v1/train/forward_backward": ["sequences", "loss"],
    "/v1/train/optim_step": ["lr", "weight_decay", "max_grad_norm", "betas", "eps"],
    "/v1/train/save": ["path", "optimizer"],
}
TRAINING = {"/v1/train/forward_backward", "/v1/train/optim_step", "/v1/train/save"}


@pytest.fixture(scope="module")
def fuzz_worker(tiny_dir, tmp_path_factory):
    from envace_worker.model_host import HostOptions, load_host

    root = str(tmp_path_factory.mktemp("fuzz") / "root")
    os.makedirs(root)
    host = load_host(HostOptions(model=tiny_dir, kl_reference=False))
    w = Worker(host, Commands(Trainer(host), 0, 1), lambda eng: ModelThread(eng, 0.0, 64), checkpoint_root=root)
    yield http_client(w), w, root
    w.thread.stop()


def _state(w):
    tr = w.commands.trainer
    return (weights_of(w.host.model), [None if p.grad is None else p.grad.clone() for p in w.host.model.parameters()],
            str(tr.opt.state_dict()), tr.step)


def _unchanged(a, b):
    same_w = all(torch.equal(a[0][k], b[0][k]) for k in a[0])
    same_g = all((x is None and y is None) or (x is not None and y is not None and torch.equal(x, y))
                 for x, y in zip(a[1], b[1]))
    return same_w and same_g and a[2:] == b[2:]


@pytest.mark.parametrize("path", list(BASES))
def test_any_field_value_is_answered_without_a_500(fuzz_worker, path):
    client, w, root = fuzz_worker

    @SETTINGS
    @given(key=st.sampled_from(KEYS[path]), value=json_value)
    def check(key, value):
        body = {**BASES[path], key: value}
        before = _state(w)
        r = client.post(path, json=body)
        assert r.status_code < 500, (path, key, value, r.text[:300])
        if r.status_code >= 400:
            assert r.json()["error"]["code"]
            assert _unchanged(before, _state(w)), (path, key, value)
        elif path in TRAINING:
            client.post("/v1/train/zero_grad", json={})   # keep the next example's baseline simple

    check()
    assert os.listdir(os.path.dirname(root)) == [os.path.basename(root)]   # nothing written beside the root


@SETTINGS
@given(body=json_value)
def test_any_json_body_is_answered_without_a_500(fuzz_worker, body):
    client, w, _ = fuzz_worker
    before = _state(w)
    for path in ("/v1/tokenize", "/v1/train/forward_backward", "/v1/train/optim_step", "/v1/train/load"):
        r = client.post(path, json=body)
        assert r.status_code < 500, (path, body, r.text[:300])
        if r.status_code >= 400:
            assert _unchanged(before, _state(w)), (path, body)
