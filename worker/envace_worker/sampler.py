"""Batched KV-cache decoding of many sequences at once.

Each row has its own prompt, temperature, top_p, token budget, stop strings and generator. Prompts
are left-padded into one batch (attention mask + explicit position ids), decoded one token per
step for all live rows, and finished rows are dropped from the batch and the cache.

Logprobs: the log-probability of the sampled token under the temperature-scaled *full*
distribution, log_softmax(logits / T) (top_p only restricts what is sampled, as vLLM's default
"processed" logprobs without top-p renormalisation). Greedy rows (T = 0) report log_softmax(logits),
i.e. T = 1. This is what a teacher-forced forward at the same temperature computes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch


@dataclass
class RowSpec:
    prompt_ids: list
    temperature: float = 1.0
    top_p: float = 1.0
    max_tokens: int = 16
    stop: list = field(default_factory=list)
    generator: torch.Generator | None = None
    top_logprobs: int = 0


@dataclass
class RowResult:
    token_ids: list
    logprobs: list
    top: list            # per token: list of (token_id, logprob), empty unless asked
    finish_reason: str   # "stop" | "length"
    text: str


def _pick(logits_BV, temps_B, top_p_B, uniforms_B, greedy_B):
    """Returns (token_B, logprob_B, logprobs_BV)."""
    scale_B = torch.where(greedy_B, torch.ones_like(temps_B), temps_B)
    logprobs_BV = torch.log_softmax(logits_BV / scale_B[:, None], dim=-1)
    probs_BV = logprobs_BV.exp()
    sorted_p, sorted_i = probs_BV.sort(dim=-1, descending=True)
    cum = sorted_p.cumsum(dim=-1)
    sorted_p = sorted_p.masked_fill((cum - sorted_p) > top_p_B[:, None], 0.0)
    cdf = sorted_p.cumsum(dim=-1)
    target = (uniforms_B * cdf[:, -1]).unsqueeze(1)
    j = torch.searchsorted(cdf, target, right=True).clamp(max=cdf.shape[1] - 1)
    sampled_B = sorted_i.gather(1, j).squeeze(1)
    token_B = torch.where(greedy_B, logits_BV.argmax(dim=-1), sampled_B)
    return token_B, logprobs_BV.gather(1, token_B[:, None]).squeeze(1), logprobs_BV


def _cache_kwarg(model) -> str:
    """transformers 5.x renamed `past_key_values` to `cache`; older versions only know the former."""
    import inspect

    return "cache" if "cache" in inspect.signature(model.forward).parameters else "past_key_values"


def _stop_hit(text: str, stops: list):
    cut = min((text.find(s) for s in stops if s and s in text), default=-1)
    return cut


@torch.no_grad()
def generate(model, tokenizer, rows: list, eos_ids: list, pad_id: int, max_context: int) -> list:
    from transformers import DynamicCache

    device = next(model.parameters()).device
    B = len(rows)
    L = max(len(r.prompt_ids) for r in rows)
    ids = torch.full((B, L), pad_id, dtype=torch.long)
    attn = torch.zeros((B, L), dtype=torch.long)
    for i, r in enumerate(rows):
        n = len(r.prompt_ids)
        ids[i, L - n:] = torch.tensor(r.prompt_ids, dtype=torch.long)
        attn[i, L - n:] = 1
    pos = (attn.cumsum(-1) - 1).clamp(min=0)
    ids, attn, pos = ids.to(device), attn.to(device), pos.to(device)
    next_pos = attn.sum(-1)

    temps = torch.tensor([max(r.temperature, 0.0) for r in rows], dtype=torch.float32, device=device)
    greedy = temps <= 0
    top_p = torch.tensor([r.top_p for r in rows], dtype=torch.float32, device=device)
    budget = [min(r.max_tokens, max_context - len(r.prompt_ids)) for r in rows]
    eos = torch.tensor(sorted(eos_ids), dtype=torch.long, device=device)

    out_ids = [[] for _ in rows]
    out_lp = [[] for _ in rows]
    out_top = [[] for _ in rows]
    finish = [None] * B
    texts = [None] * B  # set when a stop string ended the row (text cut before it)
    live = list(range(B))  # row index of each batch position

    cache = DynamicCache(config=model.config)
    ck = _cache_kwarg(model)
    out = model(input_ids=ids, attention_mask=attn, position_ids=pos, use_cache=True, logits_to_keep=1,
                **{ck: cache})
    logits = out.logits[:, -1, :].float()
    while True:
        uni = torch.tensor(
            [float(torch.rand((), generator=rows[i].generator)) if not bool(greedy[i]) else 0.0 for i in live],
            dtype=torch.float32, device=device)
        lv = torch.tensor(live, device=device)
        tok, lp, lps = _pick(logits, temps[lv], top_p[lv], uni, greedy[lv])
        is_eos = torch.isin(tok, eos).tolist()
        tok_l, lp_l = tok.tolist(), lp.tolist()
        keep = []
        for b, i in enumerate(live):
            out_ids[i].append(tok_l[b])
            out_lp[i].append(lp_l[b])
            if rows[i].top_logprobs:
                v, k = lps[b].topk(rows[i].top_logprobs)
                out_top[i].append(list(zip(k.tolist(), v.tolist())))
            if is_eos[b]:
                finish[i] = "stop"
            elif rows[i].stop:
                text = tokenizer.decode(out_ids[i], skip_special_tokens=False)
                cut = _stop_hit(text, rows[i].stop)
                if cut >= 0:
                    finish[i], texts[i] = "stop", text[:cut]
            if finish[i] is None and len(out_ids[i]) >= budget[i]:
                finish[i] = "length"
            if finish[i] is None:
                keep.append(b)
        if not keep:
            break
        if len(keep) < len(live):
            idx = torch.tensor(keep, device=device)
            cache.batch_select_indices(idx)
            attn, next_pos, tok = attn[idx], next_pos[idx], tok[idx]
            live = [live[b] for b in keep]
        attn = torch.cat([attn, torch.ones((len(live), 1), dtype=attn.dtype, device=device)], dim=1)
        out = model(input_ids=tok[:, None], attention_mask=attn, position_ids=next_pos[:, None],
                    use_cache=True, **{ck: cache})
        next_pos = next_pos + 1
        logits = out.logits[:, -1, :].float()

    results = []
    for i in range(B):
        text = texts[i]
        if text is None:
            body = out_ids[i]
            if finish[i] == "stop" and body and body[-1] in eos_ids:
                body = body[:-1]
            text = tokenizer.decode(body, skip_special_tokens=False)
        results.append(RowResult(out_ids[i], out_lp[i], out_top[i], finish[i], text))
    return results
