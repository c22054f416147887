"""POST /v1/train/publish: the weights as an inference engine loads them (PEFT adapter with HF module
names, or a full HF checkpoint), versioned `<name>@<step>`, atomic, pruned, confined to the root."""
import json
import os

import pytest
import torch

from conftest import http_client
from envace_worker.distributed import Commands
from envace_worker.model_thread import ModelThread
from envace_worker.server import Worker
from envace_worker.trainer import Trainer


@pytest.fixture
def make_client(make_host, tmp_path):
    made = []

    def make(**kw):
        host = make_host(**kw)
        w = Worker(host, Commands(Trainer(host), 0, 1), lambda run: ModelThread(run, 0.01, 64),
                   checkpoint_root=str(tmp_path / "root"))
        made.append(w)
        return http_client(w), w

    os.makedirs(tmp_path / "root")
    yield make
    for w in made:
        w.thread.stop()


def _train_one_step(client):
    ids = list(range(5, 25))
    seq = {"token_ids": ids, "loss_mask": [0] * 10 + [1] * 10, "advantages": [1.0] * 20}
    assert client.post("/v1/train/forward_backward",
                       json={"sequences": [seq], "loss": {"fn": "cross_entropy"}}).status_code == 200
    r = client.post("/v1/train/optim_step", json={"lr": 1e-2})
    assert r.status_code == 200 and r.json()["skipped"] is False


def test_lora_publish_writes_a_peft_adapter_that_peft_loads_back(make_client, tmp_path):
    from peft import PeftModel
    from safetensors.torch import load_file
    from transformers import AutoModelForCausalLM

    client, w = make_client(lora_rank=4)
    _train_one_step(client)
    r = client.post("/v1/train/publish", json={"name": "run1"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["version"] == "run1@1" and out["step"] == 1 and out["format"] == "lora"
    assert out["path"] == str(tmp_path / "root" / "published" / "run1@1")
    assert {"adapter_config.json", "adapter_model.safetensors"} <= set(os.listdir(out["path"]))
    assert not any(f.startswith("trainer_state") or f.endswith(".bin") for f in os.listdir(out["path"]))
    tensors = load_file(os.path.join(out["path"], "adapter_model.safetensors"))
    # Hugging Face module names, as vLLM's LoRA loader expects them
    assert any(k.endswith("self_attn.q_proj.lora_A.weight") and k.startswith("base_model.model.model.layers.")
               for k in tensors)
    cfg = json.load(open(os.path.join(out["path"], "adapter_config.json")))
    assert cfg["r"] == 4 and "q_proj" in cfg["target_modules"]
    # the trained adapter (lora_B no longer zero) round-trips: a fresh PEFT model over the base
    # weights computes the worker's logits
    assert any("lora_B" in k and v.abs().sum() > 0 for k, v in tensors.items())
    base = AutoModelForCausalLM.from_pretrained(w.host.base.name_or_path, dtype=torch.float32)
    loaded = PeftModel.from_pretrained(base, out["path"]).eval()
    x = torch.tensor([[5, 6, 7, 8, 9, 10]])
    with torch.no_grad():
        assert torch.allclose(loaded(x).logits, w.host.model(x).logits, atol=1e-5)


def test_full_publish_is_a_loadable_hf_checkpoint_with_tokenizer(make_client):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    client, w = make_client()
    _train_one_step(client)
    out = client.post("/v1/train/publish", json={"name": "full", "dir": "pub"}).json()
    assert out["format"] == "full" and out["version"] == "full@1" and out["dir"] == os.path.join("pub", "full@1")
    files = set(os.listdir(out["path"]))
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= files
    assert not any(f.startswith("trainer_state") for f in files)
    model = AutoModelForCausalLM.from_pretrained(out["path"], dtype=torch.float32).eval()
    assert AutoTokenizer.from_pretrained(out["path"]).encode("hello") == w.tok.encode("hello")
    x = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        assert torch.allclose(model(x).logits, w.host.model(x).logits, atol=1e-5)


def test_old_versions_are_pruned_and_republishing_a_step_replaces_it(make_client, tmp_path):
    client, w = make_client(lora_rank=2)
    root = tmp_path / "root" / "published"
    seen = []
    for _ in range(4):
        _train_one_step(client)
        out = client.post("/v1/train/publish", json={"name": "r", "keep": 2}).json()
        seen.append(out)
    assert [o["version"] for o in seen] == ["r@1", "r@2", "r@3", "r@4"]
    assert seen[2]["pruned"] == ["r@1"] and seen[3]["pruned"] == ["r@2"]
    assert sorted(os.listdir(root)) == ["r@3", "r@4"]   # no temporary directory left behind
    # another run's versions in the same directory are not touched
    (root / "other@1").mkdir()
    again = client.post("/v1/train/publish", json={"name": "r", "keep": 2}).json()
    assert again["version"] == "r@4" and again["pruned"] == []
    assert sorted(os.listdir(root)) == ["other@1", "r@3", "r@4"]


@pytest.mark.parametrize("body,code", [
    ({"name": "../x"}, "invalid_request"),
    ({"name": "a@b"}, "invalid_request"),
    ({}, "invalid_request"),
    ({"name": "r", "keep": 0}, "invalid_request"),
    ({"name": "r", "keep": True}, "invalid_request"),
    ({"name": "r", "dir": "../outside"}, "path_outside_root"),
    ({"name": "r", "dir": "/etc"}, "path_outside_root"),
])
def test_bad_publish_requests_are_400_and_write_nothing(make_client, tmp_path, body, code):
    client, _ = make_client(lora_rank=2)
    r = client.post("/v1/train/publish", json=body)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == code
    assert os.listdir(tmp_path / "root") == []
    assert not (tmp_path / "outside").exists()


def test_publish_needs_the_token(make_client):
    from fastapi.testclient import TestClient

    from envace_worker.server import create_app

    _, w = make_client(lora_rank=2)
    anon = TestClient(create_app(w, "test-token"), base_url="http://127.0.0.1")
    assert anon.post("/v1/train/publish", json={"name": "r"}).status_code == 401
