"""Command line: `python -m envace_worker serve ...` and `python -m envace_worker init-tiny ...`."""
from __future__ import annotations

import argparse
import os
import socket
import sys

# How long the server keeps an idle keep-alive connection (see serve_cmd): far longer than any
# client pools one, so that the client, not the server, always closes it.
IDLE_KEEP_ALIVE_S = 120


def _add_model_args(p):
    p.add_argument("--model", help="Hugging Face causal-LM directory")
    p.add_argument("--init", choices=["tiny"], help="initialise the built-in tiny model instead")
    p.add_argument("--corpus", help="text file the tiny model's BPE tokenizer is trained on")
    p.add_argument("--size", choices=["xs", "s", "m"], default="xs", help="tiny model size (default xs)")
    p.add_argument("--vocab-extra", help="file with one whole token per line (ids, emails, names)")
    p.add_argument("--seed", type=int, default=0, help="seed of the tiny model's init and LoRA init")
    p.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")


def build_parser():
    ap = argparse.ArgumentParser(prog="python -m envace_worker")
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve", help="serve the sampling + training HTTP API")
    _add_model_args(s)
    s.add_argument("--save-init", help="also save the initialised tiny model+tokenizer to this directory")
    s.add_argument("--lora-rank", type=int, default=0, help="train LoRA adapters of this rank only")
    s.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default loopback; any other needs an explicit --api-key or env token)")
    s.add_argument("--api-key", help="bearer token every request but GET /health must send (default: "
                                     "$ENVACE_WORKER_API_KEY, else a random one printed on stderr)")
    s.add_argument("--checkpoint-root", default=".",
                   help="directory that /v1/train/save and /load paths must stay inside (default: the "
                        "current directory, i.e. the run directory)")
    s.add_argument("--port", type=int, default=8000, help="0 picks a free port (printed)")
    s.add_argument("--max-body-bytes", type=int, default=64 << 20)
    s.add_argument("--device", default="auto", help="cpu, cuda, cuda:N or auto")
    s.add_argument("--threads", type=int, default=0,
                   help="torch intra-op threads for training (0: all cores). Where other programs keep "
                   "the cores busy, 1 can be several times faster: a fixed thread count (kept for "
                   "repeatable runs) waits for threads the OS has descheduled (bench:blas-threading --load)")
    s.add_argument("--sample-threads", type=int, default=1,
                   help="torch intra-op threads while decoding (default 1: small decode ops lose to fork/join)")
    s.add_argument("--batch-window-ms", type=float, default=2.0,
                   help="how long an idle worker waits for more requests before decoding (later ones join "
                        "the running batch anyway)")
    s.add_argument("--max-batch-rows", type=int, default=64, help="most sequences decoded together")
    s.add_argument("--prefix-cache-mb", type=int, default=128,
                   help="keys/values of finished sequences kept for reuse by prompts that extend them (0: off)")
    s.add_argument("--parallel", choices=["auto", "ddp", "fsdp"], default="auto",
                   help="under torchrun: ddp (every rank holds the model) or fsdp (weights, gradients and "
                        "optimizer state sharded; rank 0 keeps a sampling copy); auto: fsdp on CUDA, ddp on CPU")
    s.add_argument("--micro-batch-tokens", type=int, default=8192, help="padded tokens per training micro-batch")
    s.add_argument("--no-kl-reference", action="store_true", help="do not keep a frozen reference copy")
    t = sub.add_parser("init-tiny", help="create and save the tiny model + tokenizer")
    _add_model_args(t)
    t.add_argument("--out", required=True)
    return ap


def _device(arg: str) -> str:
    import torch

    if arg != "auto":
        return arg
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        if local >= torch.cuda.device_count():
            raise SystemExit(f"envace_worker: local rank {local} needs GPU {local}, but {torch.cuda.device_count()} "
                             "are visible; start fewer processes per node or pass --device cpu")
        return f"cuda:{local}"
    return "cpu"


def init_tiny_cmd(a) -> int:
    from .tiny import init_tiny, save_model

    if not a.corpus:
        print("init-tiny needs --corpus FILE", file=sys.stderr)
        return 2
    model, tok = init_tiny(a.corpus, a.size, a.seed, a.vocab_extra)
    save_model(model, tok, a.out)
    print(f"saved tiny-{a.size} ({sum(p.numel() for p in model.parameters())} parameters, "
          f"vocab {len(tok)}) to {a.out}", flush=True)
    return 0


def check_model_dir(model: str) -> str | None:
    """One line saying why `model` is not a local Hugging Face model directory, or None. Checked
    before anything loads, so a typo never turns into a hub lookup and a traceback."""
    if not os.path.isdir(model):
        return f"--model {model}: no such directory (give a local Hugging Face model directory)"
    if not os.path.isfile(os.path.join(model, "config.json")):
        return f"--model {model}: not a model directory (it has no config.json)"
    return None


def api_token(a) -> tuple:
    """(token, error line): --api-key, else the environment variable, else a fresh random one, which
    is refused for a non-loopback --host (a token nobody was told cannot protect a public port)."""
    from .auth import ENV_VAR, is_loopback, new_token

    token = a.api_key or os.environ.get(ENV_VAR)
    if token:
        return token, None
    if not is_loopback(a.host):
        return None, (f"--host {a.host} is not a loopback address: give the token yourself with --api-key "
                      f"or {ENV_VAR}")
    return new_token(), None


def serve_cmd(a) -> int:
    if a.model:
        why = check_model_dir(a.model)
        if why:
            print(f"envace_worker: {why}", file=sys.stderr)
            return 2
    token, why = api_token(a)
    if why:
        print(f"envace_worker: {why}", file=sys.stderr)
        return 2
    if not os.path.isdir(a.checkpoint_root):
        print(f"envace_worker: --checkpoint-root {a.checkpoint_root}: no such directory", file=sys.stderr)
        return 2
    a.token = token
    import torch

    from . import distributed
    from .model_host import HostOptions, load_host
    from .trainer import Trainer

    if a.threads > 0:
        torch.set_num_threads(a.threads)
    device = _device(a.device)
    if device.startswith("cuda"):
        torch.cuda.set_device(torch.device(device))   # before NCCL starts, so that it binds this GPU
    rank, world = distributed.init(device)
    if not a.model and a.init != "tiny":
        print("serve needs --model PATH or --init tiny --corpus FILE", file=sys.stderr)
        return 2
    host = load_host(HostOptions(model=a.model, init=a.init, corpus=a.corpus, size=a.size,
                                 vocab_extra=a.vocab_extra, seed=a.seed,
                                 save_init=a.save_init if rank == 0 else None, lora_rank=a.lora_rank,
                                 dtype=a.dtype, device=device, kl_reference=not a.no_kl_reference))
    if world > 1:
        distributed.sync_parameters(host.model)
    mode = distributed.resolve_parallel(a.parallel, device, world)
    policy = distributed.make_policy(host, rank, world, mode)
    trainer = Trainer(host, rank, world, a.micro_batch_tokens, policy)
    commands = distributed.Commands(trainer, rank, world)
    if rank > 0:
        commands.follow()
        return 0
    try:
        return _serve_http(a, host, commands, world)
    finally:
        commands.stop()


def _serve_http(a, host, commands, world) -> int:
    import uvicorn

    from .model_thread import ModelThread
    from .server import Worker, create_app

    worker = Worker(host, commands, lambda eng: ModelThread(eng, a.batch_window_ms / 1000.0, a.max_batch_rows,
                                                      a.sample_threads, a.threads),
                    world, a.prefix_cache_mb, os.path.abspath(a.checkpoint_root))
    from .auth import ENV_VAR

    if not (a.api_key or os.environ.get(ENV_VAR)):
        print(f"api key (send as Authorization: Bearer): {a.token}", file=sys.stderr, flush=True)
    app = create_app(worker, a.token, a.max_body_bytes, a.host)
    sock = socket.socket(socket.AF_INET6 if ":" in a.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((a.host, a.port))
    sock.listen(512)
    port = sock.getsockname()[1]

    class Server(uvicorn.Server):
        async def startup(self, sockets=None):
            await super().startup(sockets=sockets)
            if not self.should_exit:
                print(f"listening on http://{a.host}:{port}", flush=True)

        def handle_exit(self, sig, frame):
            # uvicorn re-raises a captured SIGINT/SIGTERM after its graceful shutdown (so the
            # process would die "by signal"); a clean stop is what the supervisor expects: exit 0.
            self.should_exit = True

    # An idle keep-alive connection stays open for IDLE_KEEP_ALIVE_S, not uvicorn's 5 s. Node's fetch
    # pools a connection for 4 s, timed on its own event loop: a client whose loop is busy for a
    # second or more (four demo seeds' rollouts on 2 cores) sends its next request, say a
    # forward_backward, on a connection this server had already closed, and gets UND_ERR_SOCKET
    # ("other side closed") for a request that never arrived. The client still closes its idle
    # connections at 4 s; the server only stops racing it.
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=5, access_log=False,
                            timeout_keep_alive=IDLE_KEEP_ALIVE_S)
    server = Server(config)
    try:
        server.run(sockets=[sock])  # uvicorn handles SIGINT/SIGTERM: stops accepting, drains, returns
    finally:
        worker.thread.stop()
    return 0


def main(argv=None) -> int:
    a = build_parser().parse_args(argv)
    if a.cmd == "init-tiny":
        return init_tiny_cmd(a)
    return serve_cmd(a)
