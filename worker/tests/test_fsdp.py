"""`--parallel fsdp` on 2 CPU processes (gloo): the same updates as 1 process, sharded for real,
checkpoints interchangeable with single-process ones, and no hang when ranks have different amounts
of work or one of them sees a non-finite loss."""
import os

import pytest
import torch
import torch.distributed as dist

from conftest import free_port, spawn_ranks
from envace_worker.distributed import Commands, make_policy
from envace_worker.errors import BadRequest
from envace_worker.model_host import HostOptions, load_host
from envace_worker.train_batch import parse_forward_backward, parse_optim_step
from envace_worker.trainer import Trainer

# eps well above float32 noise: Adam divides by sqrt(v), which turns summation-order noise of
# near-zero gradient entries into full-size updates when eps is 1e-8 (see test_ddp.py)
STEP = {"lr": 1e-2, "max_grad_norm": 0.5, "eps": 1e-4}


def _batch(seed: int, huge_advantage: bool = False):
    g = torch.Generator().manual_seed(seed)
    seqs = []
    for n in (7, 12, 5, 9, 15):   # odd count: the ranks get different numbers of sequences and tokens
        ids = torch.randint(3, 300, (n,), generator=g).tolist()
        adv = torch.randn(n, generator=g).tolist()
        old = (-torch.rand(n, generator=g) * 3 - 3).tolist()
        seqs.append({"token_ids": ids, "loss_mask": [0, 0] + [1] * (n - 2), "advantages": adv,
                     "sampling_logprobs": old})
    if huge_advantage:   # finite input whose float32 loss overflows: only in rank 1's share
        # a sampling logprob of -1000 makes the ratio exp(logp + 1000) overflow to inf; with a
        # negative advantage PPO keeps the unclipped -inf term, so the loss is +inf
        n = len(seqs[-1]["token_ids"])
        seqs[-1]["advantages"] = [-1.0] * n
        seqs[-1]["sampling_logprobs"] = [-1000.0] * n
    return {"sequences": seqs, "loss": {"fn": "ppo", "clip_low": 0.2, "clip_high": 0.28, "kl_coef": 0.1}}


def _commands(model_dir, rank, world, mode, lora_rank=0, device="cpu"):
    host = load_host(HostOptions(model=model_dir, lora_rank=lora_rank, device=device))
    # 8 tokens per micro-batch: rank 0 (lengths 7, 12, 5) runs 3 micro-batches, rank 1 (9, 15) runs 2
    trainer = Trainer(host, rank, world, micro_batch_tokens=8, policy=make_policy(host, rank, world, mode))
    return host, trainer, Commands(trainer, rank, world)


def _weights(host):
    return {k: t.detach().clone() for k, t in host.model.state_dict().items()}


def _fb(cmds, host, body):
    return cmds.run("forward_backward", parse_forward_backward(body, host.base.config.vocab_size, 4096, True))


def _script(cmds, host, script, out, extra=None):
    """Runs script steps on rank 0 (the followers mirror them): ("fb", batch seed), ("step",),
    ("save", dir), ("load", dir); saves the sampling model's weights and the step results."""
    results = []
    for op in script:
        if op[0] == "fb":
            results.append(_fb(cmds, host, _batch(op[1], *op[2:])))
        elif op[0] == "step":
            results.append(cmds.run("optim_step", parse_optim_step(STEP)))
        elif op[0] == "save":
            results.append(cmds.run("save", (op[1], True)))
        elif op[0] == "load":
            results.append(cmds.run("load", (op[1], True)))
        elif op[0] == "load_refused":
            try:
                cmds.run("load", (op[1], True))
                results.append(None)
            except BadRequest as e:
                results.append({"code": e.code, "message": str(e)})
    cmds.stop()
    weights = {k: t.cpu() for k, t in _weights(host).items()}
    torch.save({"w": weights, "results": results, **(extra or {})}, out)


def _rank_main(rank, world, port, model_dir, script, out, lora_rank, cuda):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    torch.set_num_threads(1)
    device = f"cuda:{rank}" if cuda else "cpu"
    if cuda:
        torch.cuda.set_device(rank)
    dist.init_process_group("nccl" if cuda else "gloo", rank=rank, world_size=world)
    try:
        host, trainer, cmds = _commands(model_dir, rank, world, "fsdp", lora_rank, device)
        # what this rank holds of one layer's weight, against the whole of it
        w = dict(trainer.policy.module.model.named_parameters())
        name = next(n for n in w if "layers.0.mlp.up_proj" in n and w[n].requires_grad)
        held = (w[name].to_local().numel(), w[name].numel())
        if rank > 0:
            cmds.follow()
            torch.save({"held": held}, f"{out}.rank{rank}")
        else:
            _script(cmds, host, script, out, {"held": held})
        dist.barrier()
    finally:
        dist.destroy_process_group()


def _one_process(model_dir, script, out, lora_rank=0, cuda=False):
    torch.set_num_threads(1)
    host, _, cmds = _commands(model_dir, 0, 1, "none", lora_rank, "cuda:0" if cuda else "cpu")
    _script(cmds, host, script, out)
    return torch.load(out)


def _two_processes(model_dir, script, out, lora_rank=0, cuda=False):
    spawn_ranks(_rank_main, (2, free_port(), model_dir, script, out, lora_rank, cuda))
    return torch.load(out), torch.load(out + ".rank1")


def _assert_same_weights(a, b, start=None, atol=1e-5):
    moved = 0.0
    for k in a:
        assert torch.allclose(a[k], b[k], atol=atol, rtol=0), k
        if start is not None:
            moved = max(moved, (a[k] - start[k]).abs().max().item())
    if start is not None:
        assert moved > 1e-3   # the update is real


# two steps, the first with two accumulated calls
TWO_STEPS = [("fb", 0), ("fb", 1), ("step",), ("fb", 2), ("step",)]


def test_fsdp_matches_one_process_and_shards(tiny_dir, tmp_path):
    one = _one_process(tiny_dir, TWO_STEPS, str(tmp_path / "one.pt"))
    two, rank1 = _two_processes(tiny_dir, TWO_STEPS, str(tmp_path / "two.pt"))
    start = _weights(load_host(HostOptions(model=tiny_dir)))
    _assert_same_weights(one["w"], two["w"], start)
    for r1, r2 in zip(one["results"], two["results"]):
        if "loss" in r1:
            assert abs(r1["loss"] - r2["loss"]) < 1e-5 and r1["metrics"]["kl"] == pytest.approx(r2["metrics"]["kl"], rel=1e-5)
        else:
            assert abs(r1["grad_norm"] - r2["grad_norm"]) < 1e-5 * max(1.0, r1["grad_norm"])
    # each rank holds half of the layer's weight, not all of it
    for held, whole in (two["held"], rank1["held"]):
        assert held == whole // 2


def test_fsdp_lora_trains_only_adapters_like_one_process(tiny_dir, tmp_path):
    script = [("fb", 0), ("step",)]
    one = _one_process(tiny_dir, script, str(tmp_path / "one.pt"), lora_rank=4)
    two, _ = _two_processes(tiny_dir, script, str(tmp_path / "two.pt"), lora_rank=4)
    start = _weights(load_host(HostOptions(model=tiny_dir, lora_rank=4)))
    _assert_same_weights(one["w"], two["w"], start)
    changed = {k for k in start if not torch.equal(start[k], two["w"][k])}
    assert changed and all("lora_" in k for k in changed)


def test_checkpoints_move_between_one_process_and_fsdp(tiny_dir, tmp_path):
    a, b = str(tmp_path / "ckpt-a"), str(tmp_path / "ckpt-b")
    straight = _one_process(tiny_dir, [("fb", 0), ("step",), ("fb", 1), ("step",), ("fb", 2), ("step",)],
                            str(tmp_path / "straight.pt"))
    _one_process(tiny_dir, [("fb", 0), ("step",), ("save", a)], str(tmp_path / "first.pt"))
    # FSDP resumes the single-process checkpoint, takes step 2 and saves ...
    two, _ = _two_processes(tiny_dir, [("load", a), ("fb", 1), ("step",), ("save", b)], str(tmp_path / "mid.pt"))
    assert two["results"][0]["step"] == 1 and two["results"][-1]["step"] == 2
    # ... and a single process resumes that one for step 3
    last = _one_process(tiny_dir, [("load", b), ("fb", 2), ("step",)], str(tmp_path / "last.pt"))
    assert last["results"][-1]["step"] == 3
    _assert_same_weights(straight["w"], last["w"])


def test_a_checkpoint_saved_before_any_step_resumes_the_same_under_fsdp(tiny_dir, tmp_path):
    """Adam's bias correction counts steps: saving (or loading) an optimizer that has not stepped
    yet must not create state, or FSDP's first real step would be Adam's second."""
    a = str(tmp_path / "a")
    steps = [("fb", 0), ("step",), ("fb", 1), ("step",)]
    one = _one_process(tiny_dir, [("save", a)] + steps, str(tmp_path / "one.pt"))
    saved = _two_processes(tiny_dir, [("save", str(tmp_path / "b"))] + steps, str(tmp_path / "saved.pt"))[0]
    _assert_same_weights(one["w"], saved["w"])
    loaded = _two_processes(tiny_dir, [("fb", 2), ("step",), ("load", a)] + steps, str(tmp_path / "loaded.pt"))[0]
    assert loaded["results"][2]["step"] == 0   # the load took the run back to before its first step
    _assert_same_weights(one["w"], loaded["w"])


def test_fsdp_nonfinite_loss_on_one_rank_skips_the_step_without_hanging(tiny_dir, tmp_path):
    two, _ = _two_processes(tiny_dir, [("fb", 0, True), ("step",), ("fb", 1), ("step",)], str(tmp_path / "nan.pt"))
    fb, skipped, _, stepped = two["results"]
    assert fb["loss"] is None and fb["nonfinite"]
    assert skipped["skipped"] and skipped["step"] == 0 and "non-finite" in skipped["reason"]
    assert not stepped["skipped"] and stepped["step"] == 1
    one = _one_process(tiny_dir, [("fb", 1), ("step",)], str(tmp_path / "clean.pt"))
    _assert_same_weights(one["w"], two["w"])   # the poisoned call left no trace


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs 2 CUDA GPUs (NCCL)")
def test_fsdp_over_nccl_on_two_gpus_matches_one_gpu(tiny_dir, tmp_path):
    one = _one_process(tiny_dir, TWO_STEPS, str(tmp_path / "one.pt"), cuda=True)
    two, rank1 = _two_processes(tiny_dir, TWO_STEPS, str(tmp_path / "two.pt"), cuda=True)
    # GPU reductions run in another order than one GPU's: a looser bound than gloo's 1e-5
    _assert_same_weights(one["w"], two["w"], atol=1e-4)
    assert two["held"][0] == two["held"][1] // 2 and rank1["held"][0] == rank1["held"][1] // 2


def test_fsdp_refuses_a_corrupt_checkpoint_on_every_rank_and_trains_on(tiny_dir, tmp_path):
    bad = str(tmp_path / "bad")
    _one_process(tiny_dir, [("fb", 0), ("step",), ("save", bad)], str(tmp_path / "saved.pt"))
    with open(os.path.join(bad, "model.safetensors"), "r+b") as f:
        f.truncate(100)
    two, _ = _two_processes(tiny_dir, [("load_refused", bad), ("fb", 1), ("step",)], str(tmp_path / "two.pt"))
    refused, _, stepped = two["results"]
    assert refused["code"] == "load_failed" and bad in refused["message"]
    assert stepped["step"] == 1 and not stepped["skipped"]   # both ranks still follow rank 0
    one = _one_process(tiny_dir, [("fb", 1), ("step",)], str(tmp_path / "one.pt"))
    _assert_same_weights(one["w"], two["w"])   # the failed load changed nothing
