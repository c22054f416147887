"""The worker on one CUDA GPU (skipped without one): sampled logprobs equal a teacher-forced pass,
training converges in float32 and stays finite in bfloat16. CI has no GPU; `npm run check:gpu`
runs these on a machine that has one."""
import pytest
import torch

from conftest import http_client
from envace_worker.distributed import Commands
from envace_worker.model_thread import ModelThread
from envace_worker.server import Worker
from envace_worker.train_batch import parse_forward_backward, parse_optim_step
from envace_worker.trainer import Trainer

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")


def _serve(host):
    w = Worker(host, Commands(Trainer(host), 0, 1), lambda run: ModelThread(run, 0.01, 64))
    return http_client(w, 1 << 20), w


def test_sampled_logprobs_match_a_teacher_forced_pass_on_cuda(make_host):
    host = make_host(device="cuda")
    client, w = _serve(host)
    try:
        r = client.post("/v1/chat/completions", json={
            "messages": [{"role": "user", "content": "cancel #W1234 for alice@example.com"}],
            "temperature": 0.8, "n": 4, "seed": 1, "max_tokens": 24, "logprobs": True, "return_token_ids": True})
        assert r.status_code == 200, r.text
        body = r.json()
        prompt = body["prompt_token_ids"]
        for c in body["choices"]:
            with torch.no_grad():
                ids = torch.tensor([prompt + c["token_ids"]], device="cuda")
                lp = torch.log_softmax(host.model(ids).logits[0].float() / 0.8, -1)
            tf = [lp[len(prompt) - 1 + j, t].item() for j, t in enumerate(c["token_ids"])]
            got = [e["logprob"] for e in c["logprobs"]["content"]]
            # KV-cache decoding and a full forward use different GPU kernels: 1e-3, not the CPU's 1e-4
            assert max(abs(a - b) for a, b in zip(got, tf)) < 1e-3
    finally:
        w.thread.stop()


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_training_on_cuda(make_host, dtype):
    host = make_host(device="cuda", dtype=dtype)
    tr = Trainer(host)
    ids = host.tokenizer("cancel my order #W1234 please, the total is 12.50")["input_ids"]
    body = {"sequences": [{"token_ids": ids, "loss_mask": [0] + [1] * (len(ids) - 1)}]}
    losses = []
    for _ in range(30):
        losses.append(tr.forward_backward(parse_forward_backward(body, host.base.config.vocab_size,
                                                                 host.max_context, True))["loss"])
        st = tr.optim_step(parse_optim_step({"lr": 1e-2, "max_grad_norm": 1.0}))
        assert not st["skipped"], st
    assert all(x is not None for x in losses)
    assert losses[-1] < (0.1 if dtype == "float32" else 0.5) * losses[0], losses
