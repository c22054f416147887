"""The worker as an attacker or a careless caller meets it: no code from checkpoints, paths confined
to the checkpoint root, the token and local Host/Origin required, atomic loads, 400 (never 500) for
malformed requests, and a tokenizer that stays linear and off the event loop."""
import asyncio
import json
import os
import pickle
import subprocess
import sys
import time

import httpx
import pytest
import torch

from conftest import API_TOKEN, http_client, weights_of
from envace_worker.distributed import Commands
from envace_worker.model_thread import ModelThread
from envace_worker.server import Worker, create_app
from envace_worker.trainer import Trainer


@pytest.fixture
def served(make_host, tmp_path):
    made = []

    def make(**kw):
        host = make_host(kl_reference=False, **kw)
        w = Worker(host, Commands(Trainer(host), 0, 1), lambda eng: ModelThread(eng, 0.0, 64),
                   checkpoint_root=str(tmp_path / "root"))
        os.makedirs(tmp_path / "root", exist_ok=True)
        made.append(w)
        return http_client(w), w

    yield make
    for w in made:
        w.thread.stop()


def _train_one_step(client):
    seq = {"token_ids": [3, 4, 5, 6], "loss_mask": [0, 1, 1, 1]}
    assert client.post("/v1/train/forward_backward", json={"sequences": [seq]}).status_code == 200
    assert client.post("/v1/train/optim_step", json={"lr": 1e-2}).json()["step"] == 1


def _snapshot(w):
    tr = w.commands.trainer
    return weights_of(w.host.model), str(tr.opt.state_dict()), tr.step


def _same(a, b):
    return a[1:] == b[1:] and all(torch.equal(a[0][k], b[0][k]) for k in a[0])


class _Boom:
    """A pickle that runs a shell command when loaded, as a hostile checkpoint would."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_malicious_pickled_trainer_state_never_runs(served, tmp_path):
    client, w = served()
    _train_one_step(client)
    assert client.post("/v1/train/save", json={"path": "ck", "optimizer": False}).status_code == 200
    ck = tmp_path / "root" / "ck"
    marker = tmp_path / "pwned"
    with open(ck / "trainer_state.pt", "wb") as f:
        pickle.dump({"optimizer": _Boom(marker), "step": 1, "rng": {}}, f)
    before = _snapshot(w)
    r = client.post("/v1/train/load", json={"path": "ck"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "unsafe_checkpoint", r.text
    assert "re-save" in r.json()["error"]["message"]
    assert not marker.exists()
    assert _same(before, _snapshot(w))


def test_an_old_pickled_state_with_plain_data_still_loads(served, tmp_path):
    client, w = served()
    _train_one_step(client)
    assert client.post("/v1/train/save", json={"path": "ck"}).status_code == 200
    ck = tmp_path / "root" / "ck"
    from envace_worker import trainer_state

    tr = w.commands.trainer
    st = trainer_state.read(str(ck), tr._param_shapes())
    os.remove(ck / trainer_state.JSON_FILE)
    torch.save({"optimizer": st.optimizer, "step": 7, "rng": {"torch": st.torch_rng, "python": st.python_rng}},
               ck / "trainer_state.pt")   # the layout every checkpoint had before this format
    r = client.post("/v1/train/load", json={"path": "ck"})
    assert r.status_code == 200 and r.json()["step"] == 7, r.text


def test_a_checkpoint_with_the_state_at_the_top_level_still_loads(served, tmp_path):
    """The layout before trainer_state/: trainer_state.safetensors + trainer_state.json beside the model."""
    client, w = served()
    _train_one_step(client)
    assert client.post("/v1/train/save", json={"path": "ck"}).status_code == 200
    from envace_worker import trainer_state

    ck = tmp_path / "root" / "ck"
    os.rename(ck / trainer_state.TENSORS_FILE, ck / "trainer_state.safetensors")
    os.rename(ck / trainer_state.JSON_FILE, ck / "trainer_state.json")
    os.rmdir(ck / trainer_state.STATE_DIR)
    saved = _snapshot(w)
    client.post("/v1/train/forward_backward", json={"sequences": [{"token_ids": [7, 8, 9], "loss_mask": [0, 1, 1]}]})
    client.post("/v1/train/optim_step", json={"lr": 1e-2})
    r = client.post("/v1/train/load", json={"path": "ck"})
    assert r.status_code == 200 and r.json()["step"] == 1, r.text
    assert _same(saved, _snapshot(w))


def test_save_writes_no_pickle_and_round_trips(served, tmp_path):
    client, w = served()
    _train_one_step(client)
    assert client.post("/v1/train/save", json={"path": "ck"}).json() == {"path": "ck", "step": 1, "optimizer": True}
    from envace_worker import trainer_state

    ck = tmp_path / "root" / "ck"
    files = set(os.listdir(ck))
    assert (ck / trainer_state.TENSORS_FILE).is_file() and (ck / trainer_state.JSON_FILE).is_file()
    # the model folder is what vLLM serves as it is: the only top-level safetensors are the model's
    assert {f for f in files if f.endswith(".safetensors")} == {"model.safetensors"}
    assert not any(f.endswith((".pt", ".bin", ".pkl")) for f in files)
    saved = _snapshot(w)
    _train_one_step(client) if False else None
    seq = {"token_ids": [7, 8, 9], "loss_mask": [0, 1, 1]}
    client.post("/v1/train/forward_backward", json={"sequences": [seq]})
    client.post("/v1/train/optim_step", json={"lr": 1e-2})
    assert client.post("/v1/train/load", json={"path": "ck"}).json()["step"] == 1
    assert _same(saved, _snapshot(w))


@pytest.mark.parametrize("path", ["../outside", "/tmp/envace-outside", "link/ck", "link"])
def test_paths_outside_the_checkpoint_root_are_refused(served, tmp_path, path):
    client, w = served()
    os.makedirs(tmp_path / "elsewhere", exist_ok=True)
    os.symlink(tmp_path / "elsewhere", tmp_path / "root" / "link")
    for endpoint in ("/v1/train/save", "/v1/train/load"):
        r = client.post(endpoint, json={"path": path})
        assert r.status_code == 400 and r.json()["error"]["code"] == "path_outside_root", (endpoint, r.text)
    assert os.listdir(tmp_path / "elsewhere") == [] and not os.path.exists(tmp_path / "outside")


def _raw_app(w):
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(w, API_TOKEN, 64 << 20)),
                             base_url="http://127.0.0.1")


def test_token_host_and_origin_are_required(served, tmp_path):
    _, w = served()
    auth = {"authorization": f"Bearer {API_TOKEN}"}
    save = {"path": "ck", "optimizer": False}

    async def go():
        async with _raw_app(w) as c:
            out = {"health": (await c.get("/health")).status_code,
                   "no_token": (await c.get("/v1/models")).status_code,
                   "wrong_token": (await c.get("/v1/models", headers={"authorization": "Bearer nope"})).status_code,
                   "token": (await c.get("/v1/models", headers=auth)).status_code,
                   "foreign_host": (await c.get("/v1/models", headers={**auth, "host": "evil.example"})).status_code,
                   "rebound_host": (await c.get("/health", headers={"host": "evil.example:8000"})).status_code,
                   "foreign_origin": (await c.post("/v1/train/save", content=json.dumps(save), headers={
                       **auth, "origin": "http://evil.example", "content-type": "text/plain"})).status_code,
                   "null_origin": (await c.get("/v1/models", headers={**auth, "origin": "null"})).status_code,
                   "local_origin": (await c.get("/v1/models", headers={**auth, "origin": "http://localhost:3000"}
                                                )).status_code,
                   "save_no_token": (await c.post("/v1/train/save", json=save)).status_code}
            return out

    got = asyncio.run(go())
    assert got == {"health": 200, "no_token": 401, "wrong_token": 401, "token": 200, "foreign_host": 403,
                   "rebound_host": 403, "foreign_origin": 403, "null_origin": 403, "local_origin": 200,
                   "save_no_token": 401}
    assert not os.path.exists(tmp_path / "root" / "ck")


def _corrupt(ck, how):
    from envace_worker import trainer_state

    if how == "truncated_state":
        f = ck / trainer_state.TENSORS_FILE
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    elif how == "truncated_weights":
        f = ck / "model.safetensors"
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    elif how == "wrong_shape_weights":
        from safetensors.torch import load_file, save_file

        t = load_file(ck / "model.safetensors")
        k = next(k for k in t if t[k].dim() == 2)
        t[k] = torch.zeros(t[k].shape[0], t[k].shape[1] + 1)
        save_file(t, ck / "model.safetensors")
    elif how == "wrong_shape_state":
        from safetensors.torch import load_file, save_file

        t = load_file(ck / trainer_state.TENSORS_FILE)
        k = next(k for k in t if k != "rng.torch" and t[k].dim() == 2)
        t[k] = torch.zeros(t[k].shape[0] + 1, t[k].shape[1])
        save_file(t, ck / trainer_state.TENSORS_FILE)
    elif how == "garbage_json":
        (ck / trainer_state.JSON_FILE).write_text('{"format": "envace-trainer-state/1", "step": -3}')


@pytest.mark.parametrize("how", ["truncated_state", "truncated_weights", "wrong_shape_weights",
                                 "wrong_shape_state", "garbage_json"])
def test_a_failed_load_changes_nothing(served, tmp_path, how):
    client, w = served()
    _train_one_step(client)
    assert client.post("/v1/train/save", json={"path": "ck"}).status_code == 200
    seq = {"token_ids": [9, 8, 7, 6], "loss_mask": [0, 1, 1, 1]}
    client.post("/v1/train/forward_backward", json={"sequences": [seq]})
    assert client.post("/v1/train/optim_step", json={"lr": 1e-2}).json()["step"] == 2
    _corrupt(tmp_path / "root" / "ck", how)
    before = _snapshot(w)
    r = client.post("/v1/train/load", json={"path": "ck"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "load_failed", r.text
    assert _same(before, _snapshot(w))
    assert client.get("/health").json()["step"] == 2


MSGS = [{"role": "user", "content": "hi"}]
MALFORMED = [
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": [{"type": "text", "text": 5}]}]}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": "x"}]}]}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": ["plain"]}]}),
    ("/v1/chat/completions", {"messages": MSGS, "seed": 2 ** 64}),
    ("/v1/chat/completions", {"messages": MSGS, "seed": -(2 ** 63) - 1}),
    ("/v1/chat/completions", {"messages": MSGS, "tools": {"not": "a list"}}),
    ("/v1/chat/completions", {"messages": [{"role": "user", "content": "x" * 4_000_000}]}),
    ("/v1/tokenize", {"messages": [{"role": "user", "content": "a"}] * 5000}),
    ("/v1/train/optim_step", {"lr": 1e300}),
    ("/v1/train/optim_step", {"lr": 1e-3, "eps": -1}),
    ("/v1/train/optim_step", {"lr": 1e-3, "weight_decay": -5}),
    ("/v1/train/optim_step", {"lr": 1e-3, "betas": [0.9, 1.0]}),
    ("/v1/train/save", {"path": "a\u0000b"}),
]


def test_malformed_requests_are_400_and_change_nothing(served):
    client, w = served()
    seq = {"token_ids": [3, 4, 5], "loss_mask": [0, 1, 1]}
    assert client.post("/v1/train/forward_backward", json={"sequences": [seq]}).status_code == 200
    before = _snapshot(w)
    grads = [p.grad.clone() for p in w.host.model.parameters()]
    for path, body in MALFORMED:
        r = client.post(path, json=body)
        assert r.status_code == 400, (path, str(body)[:100], r.status_code, r.text[:300])
    deep = "[" * 100_000 + "]" * 100_000
    for path in ("/v1/train/forward_backward", "/v1/chat/completions", "/v1/tokenize"):
        r = client.post(path, content=deep, headers={"content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_json", (path, r.text[:200])
    r = client.post("/v1/train/optim_step", content='{"lr": 1' + "0" * 5000 + "}",
                    headers={"content-type": "application/json"})
    assert r.status_code == 400
    assert _same(before, _snapshot(w))
    assert all(torch.equal(g, p.grad) for g, p in zip(grads, w.host.model.parameters()))


def _conversation(n, chars=40):
    roles = ["user", "assistant"]
    return [{"role": "system", "content": "You are a store agent."}] + [
        {"role": roles[i % 2], "content": f"message {i} " + "x" * chars} for i in range(n)]


def test_tokenize_grows_linearly_with_the_conversation(served):
    """Ratio of times for 8× the messages in one run (no wall-clock limit): the per-prefix
    rendering it replaces grew ~64× (1,000 messages: 31 s)."""
    _, w = served()

    def best(n):
        body = {"messages": _conversation(n)}
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            out = w.tokenize(body)
            times.append(time.perf_counter() - t0)
        assert len(out["spans"]) == n + 1
        return min(times)

    best(50)
    ratio = best(1600) / best(200)
    assert ratio < 24, ratio


def test_tokenize_spans_equal_the_per_prefix_definition(served):
    """The linear spans are exactly what rendering every prefix gives (the definition)."""
    _, w = served()
    msgs = _conversation(9, chars=5)
    msgs.insert(3, {"role": "assistant", "content": "",
                    "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": "{\"a\": 1}"}}]})
    msgs.insert(4, {"role": "tool", "content": "{\"ok\": true}", "tool_call_id": "c0"})
    fast = w.tokenize({"messages": msgs})
    prev = []
    for k, span in enumerate(fast["spans"]):
        cur = w.render(msgs[:k + 1])
        assert (span["start"], span["end"]) == (len(prev), len(cur))
        if msgs[k]["role"] == "assistant":
            assert span["completion_start"] == len(w.render(msgs[:k], add_generation_prompt=True))
        prev = cur
    assert fast["token_ids"] == w.render(msgs)


def test_health_answers_while_a_large_tokenize_runs(served):
    _, w = served()
    body = {"messages": _conversation(4000, chars=400)}

    async def go():
        async with _raw_app(w) as c:
            auth = {"authorization": f"Bearer {API_TOKEN}"}
            big = asyncio.create_task(c.post("/v1/tokenize", json=body, headers=auth, timeout=600))
            await asyncio.sleep(0.3)
            t0 = time.perf_counter()
            h = await c.get("/health")
            waited = time.perf_counter() - t0
            running = not big.done()
            r = await big
            return h.status_code, waited, running, r.status_code

    status, waited, running, big_status = asyncio.run(go())
    assert status == 200 and big_status == 200
    assert running, "the tokenize request finished too soon to show anything; make it bigger"
    assert waited < 1.0, waited


def _serve_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "envace_worker", "serve", *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, **(env or {})})


def test_a_missing_model_directory_is_one_line_before_anything_loads(tmp_path):
    t0 = time.monotonic()
    r = _serve_cli("--model", "Qwen/Qwen3-0.6B-nonexistent")
    assert r.returncode == 2 and time.monotonic() - t0 < 30
    assert r.stderr.strip().count("\n") == 0 and "no such directory" in r.stderr
    (tmp_path / "empty").mkdir()
    r = _serve_cli("--model", str(tmp_path / "empty"))
    assert r.returncode == 2 and "no config.json" in r.stderr and "Traceback" not in r.stderr


def test_a_public_host_needs_an_explicit_token(tmp_path):
    r = _serve_cli("--model", str(tmp_path), "--host", "0.0.0.0", env={"ENVACE_WORKER_API_KEY": ""})
    assert r.returncode == 2
    (tmp_path / "config.json").write_text("{}")
    r = _serve_cli("--model", str(tmp_path), "--host", "0.0.0.0", env={"ENVACE_WORKER_API_KEY": ""})
    assert r.returncode == 2 and "--api-key" in r.stderr and "Traceback" not in r.stderr


def test_save_into_the_root_itself_is_refused_and_a_resave_replaces_whole(served, tmp_path):
    client, w = served()
    r = client.post("/v1/train/save", json={"path": "."})
    assert r.status_code == 400 and r.json()["error"]["code"] == "path_outside_root"
    _train_one_step(client)
    assert client.post("/v1/train/save", json={"path": "ck"}).status_code == 200
    (tmp_path / "root" / "ck" / "trainer_state.pt").write_bytes(b"stale")   # from some older save
    assert client.post("/v1/train/save", json={"path": "ck", "optimizer": False}).status_code == 200
    files = set(os.listdir(tmp_path / "root" / "ck"))
    assert "trainer_state.pt" not in files and "trainer_state" not in files   # nothing stale survives
    assert sorted(os.listdir(tmp_path / "root")) == ["ck"]   # no temporary directories left


def test_a_worker_bound_to_a_public_address_checks_token_and_origin_but_not_host(served):
    _, w = served()
    app = create_app(w, API_TOKEN, 1 << 20, bind_host="0.0.0.0")
    auth = {"authorization": f"Bearer {API_TOKEN}"}

    async def go():
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://10.1.2.3:8000") as c:
            return ((await c.get("/v1/models", headers=auth)).status_code,
                    (await c.get("/v1/models")).status_code,
                    (await c.get("/v1/models", headers={**auth, "origin": "http://evil.example"})).status_code)

    assert asyncio.run(go()) == (200, 401, 403)
