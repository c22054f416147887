"""Continuous batching: requests join a running decode batch at step boundaries, finished rows
leave, training calls are barriers; the fast decoder gives the same tokens and logprobs as the
reference padded-batch decoder (sampler.generate) and a teacher-forced pass."""
import threading
import time

import torch

from conftest import http_client
from envace_worker.decode_engine import ContinuousEngine, supports_fast_path
from envace_worker.distributed import Commands
from envace_worker.model_thread import ModelThread
from envace_worker.sampler import RowResult, RowSpec, generate
from envace_worker.server import Worker
from envace_worker.trainer import Trainer


def _prompt(host, text):
    out = host.tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=True,
                                             add_generation_prompt=True)
    return list(out["input_ids"] if hasattr(out, "keys") else out)


def _spec(prompt, seed, temperature=1.0, top_p=1.0, max_tokens=20, top=0):
    return RowSpec(prompt, temperature, top_p, max_tokens, [], torch.Generator().manual_seed(seed), top)


def _teacher_forced(host, prompt, completion, T):
    with torch.no_grad():
        lg = host.base(torch.tensor([prompt + completion])).logits[0].float() / T
    lp = torch.log_softmax(lg, -1)
    return [lp[len(prompt) - 1 + j, t].item() for j, t in enumerate(completion)]


def _check_engine_matches_reference(host):
    tok = host.tokenizer
    eng = ContinuousEngine(host.base, tok, host.eos_ids, host.max_context)
    pa, pb = _prompt(host, "cancel #W1234 please"), _prompt(host, "hi " * 30)
    a_specs = [_spec(pa, 5, 0.8, 0.9, 24, top=3), _spec(pa, 6, 0.8, 0.9, 24, top=3)]
    b_specs = [_spec(pb, 7, 1.3, 1.0, 12), _spec(pb, 8, 0.0, 1.0, 12)]
    out = {}
    eng.admit(a_specs, "a")
    for _ in range(5):  # b joins while a is 5 tokens in
        for job, i, r in eng.step():
            out[(job, i)] = r
    eng.admit(b_specs, "b")
    while eng.active:
        for job, i, r in eng.step():
            out[(job, i)] = r
    pad = tok.pad_token_id
    # the reference decoder, each request alone, fresh generators with the same seeds
    ref_a = generate(host.base, tok, [_spec(pa, 5, 0.8, 0.9, 24, 3), _spec(pa, 6, 0.8, 0.9, 24, 3)],
                     host.eos_ids, pad, host.max_context)
    ref_b = generate(host.base, tok, [_spec(pb, 7, 1.3, 1.0, 12), _spec(pb, 8, 0.0, 1.0, 12)],
                     host.eos_ids, pad, host.max_context)
    for job, prompt, refs, specs in (("a", pa, ref_a, a_specs), ("b", pb, ref_b, b_specs)):
        for i, ref in enumerate(refs):
            got = out[(job, i)]
            assert got.token_ids == ref.token_ids and got.text == ref.text
            assert got.finish_reason == ref.finish_reason
            assert max(abs(x - y) for x, y in zip(got.logprobs, ref.logprobs)) < 1e-5
            T = specs[i].temperature or 1.0
            tf = _teacher_forced(host, prompt, got.token_ids, T)
            assert max(abs(x - y) for x, y in zip(got.logprobs, tf)) < 1e-4
            if specs[i].top_logprobs:
                assert [len(t) for t in got.top] == [3] * len(got.token_ids)
                assert all(abs(t[0][1] - max(lp for _, lp in t)) < 1e-9 for t in got.top)
    assert eng.active == 0 and eng.logits is None


def test_fast_decoder_matches_the_reference_decoder_when_rows_join_midway(make_host):
    host = make_host(kl_reference=False)
    assert supports_fast_path(host.base)
    _check_engine_matches_reference(host)


def test_fast_decoder_under_lora(make_host):
    host = make_host(lora_rank=4)
    with torch.no_grad():  # non-zero adapters, so that the check sees them
        for n, p in host.model.named_parameters():
            if "lora_B" in n:
                p.normal_(0, 0.05)
    assert supports_fast_path(host.base)
    _check_engine_matches_reference(host)


def test_requests_admitted_together_prefill_in_padded_batches_and_match_the_reference(make_host):
    host = make_host(kl_reference=False)
    tok, pad = host.tokenizer, host.tokenizer.pad_token_id
    eng = ContinuousEngine(host.base, tok, host.eos_ids, host.max_context)
    eng.prefill_batch_tokens = 80   # the three fresh prompts need two padded groups
    groups = []
    batch = eng._prefill_batch
    eng._prefill_batch = lambda prompts: groups.append([len(p) for p in prompts]) or batch(prompts)

    # a finished sequence in the prefix cache, which one prompt below continues
    first = _prompt(host, "find user alice@example.com and her orders")
    eng.admit([_spec(first, 1, 0.0, 1.0, 8)], "first")
    done = []
    while eng.active:
        done += eng.step()
    cont = first + done[0][2].token_ids[:-1] + _prompt(host, "and cancel")[1:]

    prompts = {"a": _prompt(host, "cancel #W1234 please"), "b": _prompt(host, "hi " * 12),
               "c": _prompt(host, "refund the gift card order"), "cont": cont}
    specs = {k: [_spec(p, 10 + j, 0.9, 0.95, 16), _spec(p, 20 + j, 0.0, 1.0, 16)]
             for j, (k, p) in enumerate(prompts.items())}
    bad = [_spec(prompts["a"], 1), _spec(prompts["b"], 2)]   # rows of one request, two prompts
    order = ["a", "bad", "b", "c", "cont"]
    errors = eng.admit_many([(bad if k == "bad" else specs[k], k) for k in order])
    assert [type(e).__name__ if e else None for e in errors] == [None, "ValueError", None, None, None]
    assert sorted(len(g) for g in groups) == [1, 2] and eng.prefix_hit_tokens >= 16   # batched + cached
    out = {}
    while eng.active:
        for job, i, r in eng.step():
            out[(job, i)] = r
    assert set(out) == {(k, i) for k in prompts for i in (0, 1)}
    for j, (k, p) in enumerate(prompts.items()):
        refs = generate(host.base, tok, [_spec(p, 10 + j, 0.9, 0.95, 16), _spec(p, 20 + j, 0.0, 1.0, 16)],
                        host.eos_ids, pad, host.max_context)
        for i, ref in enumerate(refs):
            got = out[(k, i)]
            assert got.token_ids == ref.token_ids and got.finish_reason == ref.finish_reason, (k, i)
            assert max(abs(x - y) for x, y in zip(got.logprobs, ref.logprobs)) < 1e-5
            tf = _teacher_forced(host, p, got.token_ids, specs[k][i].temperature or 1.0)
            assert max(abs(x - y) for x, y in zip(got.logprobs, tf)) < 1e-4


class GatedEngine:
    """Fake engine: each admitted row finishes after `steps` steps; step 1 waits for a gate."""

    can_join = True

    def __init__(self, steps=3):
        self.rows, self.steps_needed = [], steps
        self.steps = self.prefill_tokens = self.prefix_hit_tokens = 0
        self.invalidated = 0
        self.gate, self.in_step = threading.Event(), threading.Event()
        self.log = []

    @property
    def active(self):
        return len(self.rows)

    def invalidate(self):
        self.invalidated += 1

    def admit(self, specs, job):
        self.log.append(("admit", specs[0]))
        self.rows += [[job, i, 0] for i in range(len(specs))]

    def step(self):
        self.steps += 1
        if self.steps == 1:
            self.in_step.set()
            assert self.gate.wait(10)
        done = []
        for r in self.rows:
            r[2] += 1
            if r[2] >= self.steps_needed:
                done.append((r[0], r[1], RowResult([1] * r[2], [0.0] * r[2], [], "length", "")))
        self.rows = [r for r in self.rows if r[2] < self.steps_needed]
        return done


def _wait_for(cond, what):
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < 10, what
        time.sleep(0.005)


def test_a_request_arriving_mid_decode_joins_and_a_training_call_is_a_barrier():
    eng = GatedEngine()
    mt = ModelThread(eng, window_s=0.0, max_rows=64)
    try:
        fa = mt.sample(["a"])
        assert eng.in_step.wait(10)              # a is decoding (step 1 is held)
        fb = mt.sample(["b1", "b2"])             # arrives mid-decode
        order = []
        fc = mt.call(lambda: order.append(("train", eng.active)) or "trained")
        fd = mt.sample(["d"])                    # after the training call: must wait for it
        eng.gate.set()
        assert len(fa.result(10)) == 1 and len(fb.result(10)) == 2 and len(fd.result(10)) == 1
        assert fc.result(10) == "trained"
        # the call ran with no row decoding, and d was admitted only after it
        assert order == [("train", 0)] and eng.invalidated == 1
        assert [x for _, x in eng.log] == ["a", "b1", "d"]
        m = mt.metrics
        assert m["joined_running"] == 1 and m["sample_requests"] == 3
        assert m["max_batch_requests"] == 2 and m["max_batch_rows"] == 3
        assert m["sample_batches"] == 2 and m["train_calls"] == 1 and m["completion_tokens"] == 12
    finally:
        mt.stop()


def test_http_request_joins_the_running_batch(make_host):
    host = make_host(kl_reference=False)
    w = Worker(host, Commands(Trainer(host), 0, 1), lambda eng: ModelThread(eng, 0.0, 64))
    client = http_client(w)
    gate, in_step = threading.Event(), threading.Event()
    real_step = w.engine.step

    def gated_step():
        if not in_step.is_set():
            in_step.set()
            assert gate.wait(10)
        return real_step()

    w.engine.step = gated_step
    msgs = [{"role": "user", "content": "cancel #W1234"}]
    out = {}

    def go(name, seed):
        out[name] = client.post("/v1/chat/completions", json={
            "messages": msgs, "max_tokens": 16, "seed": seed, "temperature": 1.0, "logprobs": True,
            "return_token_ids": True}).json()

    try:
        ta = threading.Thread(target=go, args=("a", 1))
        ta.start()
        assert in_step.wait(10)
        tb = threading.Thread(target=go, args=("b", 2))
        tb.start()
        _wait_for(lambda: w.thread.q.qsize() > 0, "b never reached the model thread's queue")
        gate.set()
        ta.join(30)
        tb.join(30)
        m = client.get("/health").json()["metrics"]
        assert m["joined_running"] == 1 and m["max_batch_requests"] == 2 and m["sample_batches"] == 1
        for name in ("a", "b"):
            c = out[name]["choices"][0]
            tf = _teacher_forced(host, out[name]["prompt_token_ids"], c["token_ids"], 1.0)
            lps = [e["logprob"] for e in c["logprobs"]["content"]]
            assert max(abs(x - y) for x, y in zip(lps, tf)) < 1e-4
        # the seeded request alone gives the same tokens as inside the batch
        alone = client.post("/v1/chat/completions", json={
            "messages": msgs, "max_tokens": 16, "seed": 2, "temperature": 1.0, "return_token_ids": True}).json()
        assert alone["choices"][0]["token_ids"] == out["b"]["choices"][0]["token_ids"]
    finally:
        gate.set()
        w.thread.stop()


def test_prefix_cache_reuses_a_finished_turn_and_matches_the_reference(make_host):
    host = make_host(kl_reference=False)
    tok, pad = host.tokenizer, host.tokenizer.pad_token_id
    eng = ContinuousEngine(host.base, tok, host.eos_ids, host.max_context)

    def run(spec):
        eng.admit([spec], "j")
        while eng.active:
            for _, _, r in eng.step():
                return_value = r
        return return_value

    p1 = _prompt(host, "cancel #W1234 for alice@example.com " * 3)
    first = run(_spec(p1, 3, max_tokens=20))
    assert eng.prefix_hit_tokens == 0
    # the next turn continues the first: prompt + completion + a new user turn
    p2 = p1 + first.token_ids + _prompt(host, "and the refund?")
    second = run(_spec(p2, 4, max_tokens=20))
    reused = eng.prefix_hit_tokens
    assert reused >= len(p1) + len(first.token_ids) - 1   # all but the unfed last token
    assert eng.prefill_tokens == len(p1) + len(p2) - reused
    ref = generate(host.base, tok, [_spec(p2, 4, max_tokens=20)], host.eos_ids, pad, host.max_context)[0]
    assert second.token_ids == ref.token_ids
    tf = _teacher_forced(host, p2, second.token_ids, 1.0)
    assert max(abs(x - y) for x, y in zip(second.logprobs, tf)) < 1e-4
    # new weights: the model thread invalidates; nothing stale is reused afterwards
    eng.invalidate()
    with torch.no_grad():
        for p in host.base.parameters():
            p.add_(0.01 * torch.randn_like(p))
    third = run(_spec(p2, 4, max_tokens=20))
    assert eng.prefix_hit_tokens == reused
    tf = _teacher_forced(host, p2, third.token_ids, 1.0)
    assert max(abs(x - y) for x, y in zip(third.logprobs, tf)) < 1e-4


def test_http_training_call_invalidates_cached_prefixes(make_host):
    host = make_host(kl_reference=False)
    w = Worker(host, Commands(Trainer(host), 0, 1), lambda eng: ModelThread(eng, 0.0, 64))
    client = http_client(w)
    msgs = [{"role": "system", "content": "You are a store agent. " * 4},
            {"role": "user", "content": "cancel #W1234 for alice@example.com"}]
    req = {"messages": msgs, "max_tokens": 8, "seed": 1, "logprobs": True, "return_token_ids": True}
    try:
        client.post("/v1/chat/completions", json=req)
        r1 = client.post("/v1/chat/completions", json=req).json()
        hit = client.get("/health").json()["metrics"]["prefix_hit_tokens"]
        assert hit == len(r1["prompt_token_ids"]) - 1
        ids = r1["prompt_token_ids"] + r1["choices"][0]["token_ids"]
        fb = client.post("/v1/train/forward_backward", json={"sequences": [
            {"token_ids": ids, "loss_mask": [0] * len(r1["prompt_token_ids"]) + [1] * (len(ids) - len(r1["prompt_token_ids"]))}]})
        assert fb.status_code == 200
        assert client.post("/v1/train/optim_step", json={"lr": 0.05}).json()["skipped"] is False
        r2 = client.post("/v1/chat/completions", json=req).json()
        assert client.get("/health").json()["metrics"]["prefix_hit_tokens"] == hit   # nothing reused
        c = r2["choices"][0]
        tf = _teacher_forced(host, r2["prompt_token_ids"], c["token_ids"], 1.0)
        assert max(abs(e["logprob"] - t) for e, t in zip(c["logprobs"]["content"], tf)) < 1e-4
    finally:
        w.thread.stop()
