"""`--parallel ddp` (DistributedDataParallel) on 2 CPU processes (gloo) gives the same update as 1
process on the same batch, with ranks that run different numbers of micro-batches."""
import os

import torch
import torch.distributed as dist

from conftest import free_port, spawn_ranks
from envace_worker.distributed import Commands, make_policy
from envace_worker.model_host import HostOptions, load_host
from envace_worker.train_batch import parse_forward_backward, parse_optim_step
from envace_worker.trainer import Trainer


def _batch():
    g = torch.Generator().manual_seed(0)
    seqs = []
    for n in (7, 12, 5, 9, 15):   # odd count: ranks get different numbers of sequences and tokens
        ids = torch.randint(3, 300, (n,), generator=g).tolist()
        mask = [0, 0] + [1] * (n - 2)
        adv = torch.randn(n, generator=g).tolist()
        old = (-torch.rand(n, generator=g) * 3 - 3).tolist()
        seqs.append({"token_ids": ids, "loss_mask": mask, "advantages": adv, "sampling_logprobs": old})
    return {"sequences": seqs, "loss": {"fn": "ppo", "clip_low": 0.2, "clip_high": 0.28, "kl_coef": 0.1}}


def _train(model_dir, rank, world, out):
    torch.set_num_threads(1)
    host = load_host(HostOptions(model=model_dir))
    # 8 tokens per micro-batch: rank 0 (lengths 7, 12, 5) runs 3 micro-batches, rank 1 (9, 15) runs 2
    trainer = Trainer(host, rank, world, micro_batch_tokens=8, policy=make_policy(host, rank, world, "ddp"))
    assert trainer.policy.mode == ("ddp" if world > 1 else "none")
    cmds = Commands(trainer, rank, world)
    if rank > 0:
        cmds.follow()
        torch.save({"w": {k: t.clone() for k, t in host.model.state_dict().items()}}, f"{out}.rank{rank}")
        return
    v = host.base.config.vocab_size
    for _ in range(2):   # two steps, the second with two accumulated calls
        cmds.run("forward_backward", parse_forward_backward(_batch(), v, 4096, True))
    # eps well above float32 noise: Adam divides by sqrt(v), which amplifies the summation-order
    # noise of near-zero gradient entries (~1e-9) into full-size updates when eps is 1e-8
    res = cmds.run("optim_step", parse_optim_step({"lr": 1e-2, "max_grad_norm": 0.5, "eps": 1e-4}))
    cmds.run("forward_backward", parse_forward_backward(_batch(), v, 4096, True))
    res2 = cmds.run("optim_step", parse_optim_step({"lr": 1e-2, "eps": 1e-4}))
    cmds.stop()
    torch.save({"w": {k: t.clone() for k, t in host.model.state_dict().items()},
                "norms": [res["grad_norm"], res2["grad_norm"]]}, out)


def _rank_main(rank, world, port, model_dir, out):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        _train(model_dir, rank, world, out)
        dist.barrier()
    finally:
        dist.destroy_process_group()


def test_two_processes_give_the_same_update_as_one(tiny_dir, tmp_path):
    one = str(tmp_path / "one.pt")
    two = str(tmp_path / "two.pt")
    _train(tiny_dir, 0, 1, one)
    spawn_ranks(_rank_main, (2, free_port(), tiny_dir, two))
    a, b = torch.load(one), torch.load(two)
    assert abs(a["norms"][0] - b["norms"][0]) < 1e-5 * max(1.0, a["norms"][0])
    start = load_host(HostOptions(model=tiny_dir)).model.state_dict()
    moved = 0.0
    for k in a["w"]:
        assert torch.allclose(a["w"][k], b["w"][k], atol=1e-5, rtol=0), k
        moved = max(moved, (a["w"][k] - start[k]).abs().max().item())
    assert moved > 1e-3   # the update is real
    r1 = torch.load(two + ".rank1")["w"]
    assert all(torch.equal(b["w"][k], r1[k]) for k in r1)   # all ranks hold identical weights
