"""HTTP API through FastAPI's TestClient: sampling logprobs, tokenize spans, bad input, body limit,
dynamic batching."""
import threading

import pytest
import torch

from conftest import http_client, weights_of
from envace_worker.distributed import Commands
from envace_worker.model_thread import ModelThread
from envace_worker.server import Worker
from envace_worker.trainer import Trainer


@pytest.fixture
def make_client(make_host):
    made = []

    def make(window_ms=10.0, max_body=1 << 20, micro_batch_tokens=None, **kw):
        host = make_host(**kw)
        tr = Trainer(host) if micro_batch_tokens is None else Trainer(host, micro_batch_tokens=micro_batch_tokens)
        w = Worker(host, Commands(tr, 0, 1), lambda run: ModelThread(run, window_ms / 1000.0, 64))
        made.append(w)
        return http_client(w, max_body), w

    yield make
    for w in made:
        w.thread.stop()


MSGS = [{"role": "system", "content": "You are a store agent."},
        {"role": "user", "content": "cancel #W1234 for alice@example.com"}]


def _teacher_forced(host, prompt, completion, T):
    with torch.no_grad():
        lg = host.model(torch.tensor([prompt + completion])).logits[0].float() / T
    lp = torch.log_softmax(lg, -1)
    n = len(prompt)
    return [lp[n - 1 + j, t].item() for j, t in enumerate(completion)]


def test_sampling_logprobs_match_a_teacher_forced_pass(make_client):
    client, w = make_client()
    reqs = [dict(messages=MSGS, temperature=0.7, top_p=0.9, n=3, seed=1, max_tokens=24),
            dict(messages=MSGS[1:], temperature=1.3, seed=2, max_tokens=16),
            dict(messages=[{"role": "user", "content": "hi"}], temperature=0, max_tokens=8)]
    outs = [None] * len(reqs)

    def go(i):
        outs[i] = client.post("/v1/chat/completions", json=dict(reqs[i], logprobs=True, return_token_ids=True))

    ts = [threading.Thread(target=go, args=(i,)) for i in range(len(reqs))]
    [t.start() for t in ts]
    [t.join() for t in ts]
    for req, r in zip(reqs, outs):
        assert r.status_code == 200, r.text
        body = r.json()
        prompt = body["prompt_token_ids"]
        assert len(body["choices"]) == req.get("n", 1)
        for c in body["choices"]:
            lps = [e["logprob"] for e in c["logprobs"]["content"]]
            assert [e["token_id"] for e in c["logprobs"]["content"]] == c["token_ids"]
            T = req["temperature"] or 1.0
            tf = _teacher_forced(w.host, prompt, c["token_ids"], T)
            assert max(abs(a - b) for a, b in zip(lps, tf)) < 1e-4
    # same seed, same request -> same tokens
    again = client.post("/v1/chat/completions", json=dict(reqs[1], return_token_ids=True)).json()
    assert again["choices"][0]["token_ids"] == outs[1].json()["choices"][0]["token_ids"]


def test_models_health_and_stop_strings(make_client):
    client, w = make_client()
    assert client.get("/v1/models").json()["data"][0]["object"] == "model"
    h = client.get("/health").json()
    assert h["status"] == "ok" and h["step"] == 0 and h["world_size"] == 1
    assert h["micro_batch_tokens"] == Trainer(w.host).micro_batch_tokens   # the trainer's default
    other, _ = make_client(micro_batch_tokens=512)
    assert other.get("/health").json()["micro_batch_tokens"] == 512
    r = client.post("/v1/chat/completions", json=dict(messages=MSGS, temperature=0, max_tokens=12,
                                                      return_token_ids=True)).json()
    text = r["choices"][0]["message"]["content"]
    if len(text) >= 3:
        stop = text[1:3]
        r2 = client.post("/v1/chat/completions", json=dict(messages=MSGS, temperature=0, max_tokens=12,
                                                           stop=[stop], return_token_ids=True)).json()
        c = r2["choices"][0]
        assert c["finish_reason"] == "stop" and stop not in c["message"]["content"]
        assert text.startswith(c["message"]["content"])


def test_tokenize_spans_cover_each_message(make_client):
    client, w = make_client()
    msgs = MSGS + [{"role": "assistant", "content": "", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "cancel", "arguments": "{\"order_id\": \"#W1234\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "{\"ok\": true}"},
        {"role": "assistant", "content": "Done."}]
    tools = [{"type": "function", "function": {"name": "cancel", "description": "Cancel", "parameters": {}}}]
    r = client.post("/v1/tokenize", json={"messages": msgs, "tools": tools}).json()
    ids, spans = r["token_ids"], r["spans"]
    assert [s["message"] for s in spans] == list(range(5))
    assert spans[0]["start"] == 0 and spans[-1]["end"] == len(ids)
    assert all(a["end"] == b["start"] for a, b in zip(spans, spans[1:]))
    last = spans[-1]
    done = w.tok.decode(ids[last["completion_start"]:last["end"]])
    assert done.startswith("Done.<|im_end|>")
    assert "#W1234" in w.tok.convert_ids_to_tokens(ids)   # --vocab-extra token kept whole
    g = client.post("/v1/tokenize", json={"messages": msgs[:2], "add_generation_prompt": True}).json()
    assert w.tok.decode(g["token_ids"]).endswith("<|im_start|>assistant\n")


BAD = [
    ("/v1/train/forward_backward", b"{not json", 400),
    ("/v1/train/forward_backward", {"sequences": [{"token_ids": [1, 2, 3], "loss_mask": [0, 1, 1]}],
                                    "loss": {"fn": "nope"}}, 400),
    ("/v1/train/forward_backward", {"sequences": [{"token_ids": [1, 2, 3], "loss_mask": [0, 1]}]}, 400),
    ("/v1/train/forward_backward", {"sequences": [{"token_ids": [1, 2, 3], "loss_mask": [0, 1, 1],
                                                   "advantages": [0, float("nan"), 1]}], "loss": {"fn": "ppo"}}, 400),
    ("/v1/train/forward_backward", {"sequences": [{"token_ids": [1, 2, 3], "loss_mask": [0, 1, 1],
                                                   "advantages": [0, 1, 1]}], "loss": {"fn": "ppo"}}, 400),
    ("/v1/train/forward_backward", {"sequences": [{"token_ids": [1] * 5000, "loss_mask": [0] + [1] * 4999}]}, 400),
    ("/v1/train/forward_backward", {"sequences": [{"token_ids": [1, 10 ** 9], "loss_mask": [0, 1]}]}, 400),
    ("/v1/train/optim_step", {"lr": "fast"}, 400),
    ("/v1/train/load", {"path": "/nonexistent/ck"}, 400),   # outside the checkpoint root
    ("/v1/train/load", {"path": "no-such-ckpt"}, 404),
    ("/v1/chat/completions", {"messages": []}, 400),
    ("/v1/chat/completions", {"messages": MSGS, "temperature": -1}, 400),
    ("/v1/chat/completions", {"messages": MSGS, "stream": True}, 400),
]


def test_bad_input_is_4xx_and_changes_nothing(make_client):
    client, w = make_client()
    ids = [3, 4, 5, 6]
    ok = {"sequences": [{"token_ids": ids, "loss_mask": [0, 1, 1, 1]}]}
    assert client.post("/v1/train/forward_backward", json=ok).status_code == 200
    grads = [p.grad.clone() for p in w.host.model.parameters()]
    before = weights_of(w.host.model)
    opt_state = str(w.commands.trainer.opt.state_dict())
    for path, body, status in BAD:
        if isinstance(body, bytes):
            r = client.post(path, content=body, headers={"content-type": "application/json"})
        else:
            import json
            r = client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
        assert r.status_code == status, (path, body if len(str(body)) < 200 else "...", r.text)
        err = r.json()["error"]
        assert err["code"] and err["message"]
    after = weights_of(w.host.model)
    assert all(torch.equal(before[k], after[k]) for k in before)
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, w.host.model.parameters()))
    assert str(w.commands.trainer.opt.state_dict()) == opt_state
    assert client.get("/health").json()["step"] == 0
    r = client.post("/v1/train/optim_step", json={"lr": 1e-3}).json()
    assert r["step"] == 1 and not r["skipped"] and r["grad_norm"] > 0


def test_body_over_the_limit_is_refused(make_client):
    client, _ = make_client(max_body=2000)
    big = {"sequences": [{"token_ids": [1] * 1000, "loss_mask": [0] + [1] * 999}]}
    r = client.post("/v1/train/forward_backward", json=big)
    assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"


def test_concurrent_requests_are_decoded_in_one_batch(make_client):
    client, w = make_client(window_ms=300.0)
    k = 6
    barrier = threading.Barrier(k)
    codes = []

    def go(i):
        barrier.wait()
        codes.append(client.post("/v1/chat/completions",
                                 json={"messages": MSGS, "max_tokens": 4, "seed": i}).status_code)

    ts = [threading.Thread(target=go, args=(i,)) for i in range(k)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    assert codes == [200] * k
    m = client.get("/health").json()["metrics"]
    assert m["sample_requests"] == k and m["max_batch_requests"] > 1
    assert m["sample_batches"] < k
