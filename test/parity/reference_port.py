"""A small port of the EnvACE reference's training functions (github.com/Within-yao/EnvACE at
173e941, Apache-2.0), kept in the test tree so our TypeScript can be checked against them:
- `compute_grpo_outcome_advantage` (verl/trainer/ppo/core_algos.py) with `group_by_agent_id`
  grouping (ray_trainer.py `compute_advantage`: index = f"{uid}_{agent_id}");
- `agg_loss` (core_algos.py);
- the checklist episode reward: `_aggregate_turn_score` (envs.py) summed over turns, divided by
  num_checklists × max_num_turns (reward_manager/checklist.py).
Reads one JSON request on stdin, writes one JSON answer on stdout. Written from the reference's
semantics, not copied.
"""
import json
import sys
from collections import defaultdict

import torch


def grpo_outcome_advantage(scores, index, traj_index, norm_by_std, group_by_agent_id, epsilon=1e-6):
    scores = torch.tensor(scores, dtype=torch.float64)
    id2score, id2mean, id2std = defaultdict(list), {}, {}
    traj = defaultdict(list)
    traj2avg = {}
    for i in range(len(scores)):
        traj[(index[i], traj_index[i])].append(scores[i])
    for (idx, t), lst in traj.items():
        if group_by_agent_id:
            id2score[idx].extend(lst)
        else:
            avg = torch.stack(lst).mean()
            traj2avg[(idx, t)] = avg
            id2score[idx].append(avg)
    if not group_by_agent_id:
        for i in range(len(scores)):
            scores[i] = traj2avg[(index[i], traj_index[i])]
    for idx, lst in id2score.items():
        if len(lst) == 1:
            id2mean[idx], id2std[idx] = torch.tensor(0.0, dtype=torch.float64), torch.tensor(1.0, dtype=torch.float64)
        else:
            st = torch.stack(lst)
            id2mean[idx], id2std[idx] = st.mean(), st.std()   # torch.std: unbiased (n - 1)
    out = []
    for i in range(len(scores)):
        if norm_by_std:
            out.append(((scores[i] - id2mean[index[i]]) / (id2std[index[i]] + epsilon)).item())
        else:
            out.append((scores[i] - id2mean[index[i]]).item())
    return out


def agg_loss(loss_mat, loss_mask, mode):
    loss_mat = torch.tensor(loss_mat, dtype=torch.float64)
    loss_mask = torch.tensor(loss_mask, dtype=torch.float64)
    if mode == "token-mean":
        return ((loss_mat * loss_mask).sum() / loss_mask.sum()).item()
    if mode == "seq-mean-token-sum":
        return (loss_mat * loss_mask).sum(-1).mean().item()
    if mode == "seq-mean-token-mean":
        return ((loss_mat * loss_mask).sum(-1) / loss_mask.sum(-1)).mean().item()
    raise ValueError(mode)


def micro_batch_one_token_mean(loss_mat, loss_mask):
    """What the reference's actor computes with ppo_micro_batch_size_per_gpu=1 and
    loss_agg_mode=token-mean: each row's token-mean, divided by the gradient-accumulation count
    (the mini-batch's rows) and summed."""
    rows = len(loss_mat)
    return sum(agg_loss([r], [m], "token-mean") / rows for r, m in zip(loss_mat, loss_mask))


def aggregate_turn_score(per_step_results_list, checklist_list, turn_idx):
    total = 0.0
    for j, checklist_j in enumerate(checklist_list):
        if j >= len(per_step_results_list):
            break
        if turn_idx >= len(checklist_j):
            continue
        standards = checklist_j[turn_idx]
        n = len(standards)
        if n == 0:
            continue
        agg = [False] * n
        for step in per_step_results_list[j]:
            for k in range(min(n, len(step))):
                if step[k]:
                    agg[k] = True
        total += sum((1.0 if a else 0.0) * float(s.get("weight", 0.0)) for a, s in zip(agg, standards))
    return total


def episode_reward(turns, checklist_list):
    """turns[t] = per_step_results_list of user turn t (only the turns that were scored)."""
    episode_rewards = sum(aggregate_turn_score(r, checklist_list, t) for t, r in enumerate(turns))
    num_checklists = float(len(checklist_list)) or 1.0
    max_num_turns = float(len(checklist_list[0]) if checklist_list else 1) or 1.0
    return episode_rewards / num_checklists / max_num_turns


def main():
    req = json.load(sys.stdin)
    out = {}
    for k, a in enumerate(req.get("advantages", [])):
        out.setdefault("advantages", []).append(grpo_outcome_advantage(
            a["scores"], a["index"], a["traj_index"], a["norm_by_std"], True))
    for a in req.get("agg_loss", []):
        out.setdefault("agg_loss", []).append({
            mode: agg_loss(a["loss"], a["mask"], mode)
            for mode in ("token-mean", "seq-mean-token-mean", "seq-mean-token-sum")
        } | {"micro_batch_one_token_mean": micro_batch_one_token_mean(a["loss"], a["mask"])})
    for a in req.get("episode_reward", []):
        out.setdefault("episode_reward", []).append(episode_reward(a["turns"], a["checklists"]))
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
