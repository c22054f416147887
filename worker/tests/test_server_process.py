"""A real `python -m envace_worker serve` process: prints its address once it answers, serves a chat
and a training step, and stops cleanly on SIGTERM."""
import json
import os
import signal
import subprocess
import sys
import urllib.request

import pytest

TOKEN = "process-test-token"
ENV = {**os.environ, "ENVACE_WORKER_API_KEY": TOKEN}


def _post(url, body):
    req = urllib.request.Request(url, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json", "authorization": f"Bearer {TOKEN}"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


def test_real_server_process(corpus, tmp_path):
    extra = tmp_path / "extra.txt"
    extra.write_text("#W1234\n")
    save = tmp_path / "init"
    proc = subprocess.Popen(
        [sys.executable, "-m", "envace_worker", "serve", "--init", "tiny", "--corpus", corpus, "--size", "xs",
         "--vocab-extra", str(extra), "--save-init", str(save), "--port", "0", "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), (line, proc.stderr.read() if proc.poll() else "")
        base = line.split()[-1]
        with urllib.request.urlopen(base + "/health", timeout=10) as r:
            assert json.loads(r.read())["status"] == "ok"
        out = _post(base + "/v1/chat/completions", {"messages": [{"role": "user", "content": "hi #W1234"}],
                                                    "max_tokens": 4, "return_token_ids": True, "seed": 0})
        assert len(out["choices"][0]["token_ids"]) >= 1 and out["prompt_token_ids"]
        ids = out["prompt_token_ids"] + out["choices"][0]["token_ids"]
        fb = _post(base + "/v1/train/forward_backward",
                   {"sequences": [{"token_ids": ids, "loss_mask": [0] * len(out["prompt_token_ids"]) +
                                   [1] * len(out["choices"][0]["token_ids"])}]})
        assert fb["loss"] > 0
        assert _post(base + "/v1/train/optim_step", {"lr": 1e-3})["step"] == 1
        assert os.path.exists(save / "config.json") and os.path.exists(save / "tokenizer.json")
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=30)
    assert rc == 0


def _chat(base):
    out = _post(base + "/v1/chat/completions", {"messages": [{"role": "user", "content": "hello"}], "max_tokens": 6,
                                                "return_token_ids": True, "logprobs": True, "seed": 3})
    c = out["choices"][0]
    return out["prompt_token_ids"], c["token_ids"], sum(x["logprob"] for x in c["logprobs"]["content"])


@pytest.mark.parametrize("parallel", ["ddp", "fsdp"])
def test_torchrun_two_ranks_serve_and_train(corpus, tmp_path, parallel):
    """`torchrun --nproc_per_node 2 -m envace_worker serve --parallel M`: rank 0 serves and samples,
    both ranks train, and what rank 0 samples from follows the training steps."""
    torchrun = os.path.join(os.path.dirname(sys.executable), "torchrun")
    proc = subprocess.Popen(
        [torchrun, "--nproc_per_node", "2", "-m", "envace_worker", "serve", "--init", "tiny", "--corpus", corpus,
         "--port", "0", "--threads", "1", "--parallel", parallel, "--device", "cpu",
         "--checkpoint-root", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        base = line.split()[-1]
        prompt, completion, before = _chat(base)
        seq = {"token_ids": prompt + completion, "loss_mask": [0] * len(prompt) + [1] * len(completion)}
        other = [{"token_ids": [5, 6, 7], "loss_mask": [0, 1, 1]}, {"token_ids": [8, 9], "loss_mask": [0, 1]}]
        for step in (1, 2, 3):
            fb = _post(base + "/v1/train/forward_backward", {"sequences": [seq] + other})
            assert fb["metrics"]["num_tokens"] == len(completion) + 3 and fb["loss"] > 0
            st = _post(base + "/v1/train/optim_step", {"lr": 1e-2})
            assert st["step"] == step and not st["skipped"]
        with urllib.request.urlopen(base + "/health", timeout=10) as r:
            h = json.loads(r.read())
        assert h["world_size"] == 2 and h["step"] == 3 and h["parallel"] == parallel
        # rank 0 samples from the trained weights: the same seeded request now gets another answer,
        # from a sharper distribution than the near-uniform one of the fresh model (unchanged weights
        # would repeat the first answer exactly)
        _, again, after = _chat(base)
        assert (again, after) != (completion, before) and after > before + 1.0, (before, after)
        saved = _post(base + "/v1/train/save", {"path": str(tmp_path / "ckpt")})
        assert saved["step"] == 3 and os.path.exists(tmp_path / "ckpt" / "model.safetensors")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


def test_idle_keep_alive_connection_outlives_a_busy_client(corpus):
    """A connection left idle for longer than uvicorn's default 5 s keep-alive still serves the next
    request: a Node client whose event loop was busy that long reuses its pooled connection, and a
    server that had closed it failed that request (UND_ERR_SOCKET in a four-seed demo run)."""
    import http.client
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "envace_worker", "serve", "--init", "tiny", "--corpus", corpus, "--size", "xs",
         "--port", "0", "--threads", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
    try:
        line = proc.stdout.readline()
        assert line.startswith("listening on http://127.0.0.1:"), line
        port = int(line.split(":")[-1])
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/health")
        first = conn.getresponse()
        assert first.status == 200 and json.loads(first.read())["status"] == "ok"
        sock = conn.sock
        time.sleep(7)
        conn.request("GET", "/health")  # on the same connection: http.client does not reconnect
        again = conn.getresponse()
        assert again.status == 200 and json.loads(again.read())["status"] == "ok"
        assert conn.sock is sock
        conn.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
