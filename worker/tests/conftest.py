import os
import sys

import pytest
import torch

sys.path.insert(0, os.path.dirname(__file__))
torch.set_num_threads(min(2, os.cpu_count() or 1))

from corpus import write_corpus  # noqa: E402


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    return write_corpus(str(tmp_path_factory.mktemp("corpus") / "corpus.txt"))


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory, corpus):
    """The xs tiny model saved once; tests load it with --model (faster than re-training the BPE)."""
    from envace_worker.tiny import init_tiny, save_model

    d = str(tmp_path_factory.mktemp("tiny"))
    extra = os.path.join(d, "extra.txt")
    with open(extra, "w") as f:
        f.write("#W1234\nalice@example.com\n")
    model, tok = init_tiny(corpus, "xs", seed=0, vocab_extra=extra)
    save_model(model, tok, d)
    return d


@pytest.fixture
def make_host(tiny_dir):
    from envace_worker.model_host import HostOptions, load_host

    def make(**kw):
        return load_host(HostOptions(model=tiny_dir, **kw))

    return make


def weights_of(model):
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def spawn_ranks(fn, args: tuple, nprocs: int = 2, timeout_s: float = 240.0) -> None:
    """torch.multiprocessing.spawn that fails instead of hanging: a collective that one rank never
    reaches blocks the others for ever."""
    import time

    import torch.multiprocessing as mp

    ctx = mp.spawn(fn, args=args, nprocs=nprocs, join=False)
    deadline = time.monotonic() + timeout_s
    while not ctx.join(timeout=1.0):
        if time.monotonic() > deadline:
            for p in ctx.processes:
                p.kill()
            pytest.fail(f"the {nprocs} ranks did not finish within {timeout_s:.0f} s (a collective mismatch hangs)")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


API_TOKEN = "test-token"


def http_client(worker, max_body: int = 64 << 20):
    """FastAPI's TestClient on the worker's app as a local, authorised caller (loopback Host, the
    bearer token); tests of the access guard build their own requests."""
    from fastapi.testclient import TestClient

    from envace_worker.server import create_app

    return TestClient(create_app(worker, API_TOKEN, max_body), base_url="http://127.0.0.1",
                      headers={"authorization": f"Bearer {API_TOKEN}"})
