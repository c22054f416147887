"""Continuous-batching decoder: rows join the running decode batch at any step boundary and leave
when they finish, so a request never waits for an unrelated batch to drain.

It drives the model's own decoder layers (Llama-family layout: `model.embed_tokens`, `model.layers`,
`model.norm`, `model.rotary_emb`, `lm_head`; Qwen3 / Qwen2 / Llama with SDPA attention) with a
slot KV cache of its own: row b of the running batch owns row b of preallocated key/value tensors
[rows, kv_heads, capacity, head_dim] per layer. The layers see it through the `Cache.update` duck
type, so the math (norms, RoPE, GQA, LoRA-wrapped projections) is exactly the model's, and the
logprob-equality guarantee of sampler.py holds. Models of another layout use `StaticEngine` (the
padded batch decoder of sampler.py, no joining).

A prompt is prefilled once per request and its cache copied to the request's n rows; the prefill
reuses the keys/values of the longest prefix shared with a recently finished sequence (PrefixCache:
multi-turn episodes resend the whole conversation each turn). Requests that arrive at the same step
boundary without a cached prefix are prefilled together in one right-padded forward (admit_many):
32 separate small prefills cost more than the decode steps that follow them. A finished
row's slot is filled by moving the last row into it (no gather of the whole cache per step).

Determinism: every row samples with its own generator (one uniform per token, as sampler.py), so a
seeded request alone is reproducible bit for bit; inside a batch its tokens can differ only where
batched matmul rounding flips a near-tie.
"""
from __future__ import annotations

import inspect

import torch

from .sampler import RowResult, _pick, _stop_hit, generate

_LAYOUTS = ("qwen3", "qwen2", "llama", "mistral")


def supports_fast_path(model) -> bool:
    cfg = model.config
    inner = getattr(model, "model", None)
    if getattr(cfg, "model_type", None) not in _LAYOUTS or inner is None:
        return False
    if not all(hasattr(inner, a) for a in ("embed_tokens", "layers", "norm", "rotary_emb")):
        return False
    if getattr(cfg, "_attn_implementation", None) != "sdpa":
        return False
    types = getattr(cfg, "layer_types", None) or ["full_attention"]
    return all(t == "full_attention" for t in types) and model.get_output_embeddings() is not None


class _SlotCache:
    """Duck-typed transformers Cache for our own loop. Decode: writes each row's new key/value at
    its own position and returns the filled prefix of the slot tensors. Prefill: returns the
    prompt's keys/values as they are and keeps them for copying into slots."""

    is_compileable = False

    def __init__(self):
        self.k: list = []
        self.v: list = []
        self.mode = "decode"
        self.rows = None          # LongTensor [B] (decode)
        self.write_pos = None     # LongTensor [B] (decode)
        self.used = 0             # keys visible to the step (decode)
        self.prefill_kv: list = []
        self.prefix = None        # per layer (k, v) [kvH, n, D] of a reused prefix (prefill)

    def update(self, key_states, value_states, layer_idx, *args, **kwargs):
        if self.mode == "prefill":
            if self.prefix is not None:  # reused keys/values of the prompt's cached prefix
                pk, pv = self.prefix[layer_idx]
                key_states = torch.cat([pk[None], key_states], dim=2)
                value_states = torch.cat([pv[None], value_states], dim=2)
            self.prefill_kv.append((key_states, value_states))
            return key_states, value_states
        K, V = self.k[layer_idx], self.v[layer_idx]
        B = key_states.shape[0]
        K[self.rows, :, self.write_pos] = key_states[:, :, 0]
        V[self.rows, :, self.write_pos] = value_states[:, :, 0]
        return K[:B, :, :self.used], V[:B, :, :self.used]

    # transformers may ask these of any cache object
    def get_seq_length(self, layer_idx: int = 0) -> int:
        return 0


class PrefixCache:
    """Keys/values of recently finished sequences (prompt + completion), so that a prompt that
    continues one (the next turn of an episode, the same system prompt and tools) prefills only
    its new tokens. Least recently used entries go first beyond `max_bytes`. Keys/values depend on
    the weights: the model thread clears it after every training call."""

    def __init__(self, max_bytes: int, min_tokens: int = 16):
        self.max_bytes, self.min_tokens = max_bytes, min_tokens
        self.entries: list = []   # (ids, kv, bytes), most recently used last
        self.bytes = 0

    def clear(self) -> None:
        self.entries, self.bytes = [], 0

    @staticmethod
    def _common(a: list, b: list) -> int:
        n = min(len(a), len(b))
        if a[:n] == b[:n]:
            return n
        lo, hi = 0, n  # a[:lo] == b[:lo], a[:hi] != b[:hi]
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[:mid] == b[:mid]:
                lo = mid
            else:
                hi = mid
        return lo

    def lookup(self, prompt: list):
        """Returns (n, per-layer (k, v) [kvH, n, D]) of the longest cached prefix of prompt, with
        n <= len(prompt) - 1 (the last prompt token is always computed: its logits are needed)."""
        best, best_n = None, 0
        for i, (ids, _kv, _b) in enumerate(self.entries):
            n = min(self._common(ids, prompt), len(prompt) - 1)
            if n > best_n:
                best, best_n = i, n
        if best is None or best_n < self.min_tokens:
            return 0, None
        entry = self.entries.pop(best)
        self.entries.append(entry)
        return best_n, [(k[:, :best_n], v[:, :best_n]) for k, v, in entry[1]]

    def add(self, ids: list, kv: list) -> None:
        if len(ids) < self.min_tokens:
            return
        size = sum(k.numel() * k.element_size() * 2 for k, _ in kv)
        if size > self.max_bytes:
            return
        for i, (old, _kv, b) in enumerate(self.entries):
            if len(old) <= len(ids) and ids[:len(old)] == old:  # superseded by a longer sequence
                self.entries.pop(i)
                self.bytes -= b
                break
        self.entries.append((list(ids), kv, size))
        self.bytes += size
        while self.bytes > self.max_bytes:
            _ids, _kv, b = self.entries.pop(0)
            self.bytes -= b


class _Row:
    __slots__ = ("spec", "job", "index", "ids", "lps", "top", "finish", "text", "budget")

    def __init__(self, spec, job, index, budget):
        self.spec, self.job, self.index, self.budget = spec, job, index, budget
        self.ids, self.lps, self.top = [], [], []
        self.finish = None
        self.text = None


class ContinuousEngine:
    can_join = True

    def __init__(self, model, tokenizer, eos_ids: list, max_context: int, capacity_step: int = 256,
                 prefix_cache_bytes: int = 128 << 20):
        self.model, self.tok = model, tokenizer
        self.inner = model.model
        self.head = model.get_output_embeddings()
        self.eos_ids = set(eos_ids)
        self.max_context = max_context
        self.step_len = capacity_step
        cfg = model.config
        self.n_layers = cfg.num_hidden_layers
        self.kv_heads = cfg.num_key_value_heads
        self.head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
        p = next(model.parameters())
        self.device, self.dtype = p.device, p.dtype
        params = inspect.signature(self.inner.layers[0].forward).parameters
        self.cache_kw = "cache" if "cache" in params else (
            "past_key_values" if "past_key_values" in params else "past_key_value")
        self.cache = _SlotCache()
        self.rows: list = []          # running batch, position b == cache slot b
        self.logits = None            # [B, V] next-token logits of the running rows
        self.lengths = torch.zeros(0, dtype=torch.long)   # tokens in each row's cache
        self.cap_rows = 0
        self.cap_len = 0
        self.steps = 0
        self.prefill_tokens = 0
        self.prefix_hit_tokens = 0
        self.prefixes = PrefixCache(prefix_cache_bytes) if prefix_cache_bytes > 0 else None
        self.prefill_batch_tokens = 8192   # padded tokens per batched prefill forward

    @property
    def active(self) -> int:
        return len(self.rows)

    def invalidate(self) -> None:
        """The weights changed (or may have): cached prefixes are stale."""
        if self.prefixes:
            self.prefixes.clear()

    # ------------------------------------------------------------------ cache storage
    def _ensure(self, rows: int, length: int) -> None:
        if rows <= self.cap_rows and length <= self.cap_len:
            return
        new_rows = max(rows, self.cap_rows, 8)
        if rows > self.cap_rows:
            new_rows = max(rows, 2 * self.cap_rows)
        new_len = self.cap_len
        if length > self.cap_len:
            new_len = min(max(length, 2 * self.cap_len), self.max_context)
            new_len = max(new_len, length)
            new_len = -(-new_len // self.step_len) * self.step_len
        shape = (new_rows, self.kv_heads, new_len, self.head_dim)
        for l in range(self.n_layers):
            for store in (self.cache.k, self.cache.v):
                t = torch.zeros(shape, dtype=self.dtype, device=self.device)
                if l < len(store):
                    old = store[l]
                    t[:old.shape[0], :, :old.shape[2]] = old
                    store[l] = t
                else:
                    store.append(t)
        self.cap_rows, self.cap_len = new_rows, new_len

    # ------------------------------------------------------------------ forward passes
    def _layers(self, x, pos, mask):
        cos_sin = self.inner.rotary_emb(x, pos)
        for layer in self.inner.layers[:self.n_layers]:
            x = layer(x, attention_mask=mask, position_ids=pos, position_embeddings=cos_sin, use_cache=True,
                      **{self.cache_kw: self.cache})
            if isinstance(x, tuple):
                x = x[0]
        return self.inner.norm(x)

    def _lookup(self, prompt: list):
        return self.prefixes.lookup(prompt) if self.prefixes else (0, None)

    def _prefill(self, prompt: list, hit=None):
        """Returns (last-position logits [V], per-layer (k, v) of shape [kvH, P, D]). Reuses the
        keys/values of the longest cached prefix (see PrefixCache) and computes only the rest."""
        n_pre, pre_kv = hit if hit is not None else self._lookup(prompt)
        new = prompt[n_pre:]
        ids = torch.tensor([new], dtype=torch.long, device=self.device)
        pos = torch.arange(n_pre, len(prompt), device=self.device)[None]
        mask = None  # no prefix: SDPA's own causal mask
        if n_pre:
            q = torch.arange(n_pre, len(prompt), device=self.device)[:, None]
            mask = (torch.arange(len(prompt), device=self.device)[None, :] <= q)[None, None]
        self.cache.mode, self.cache.prefill_kv, self.cache.prefix = "prefill", [], pre_kv
        try:
            h = self._layers(self.inner.embed_tokens(ids), pos, mask)
        finally:
            self.cache.mode, self.cache.prefix = "decode", None
        kv = [(k[0], v[0]) for k, v in self.cache.prefill_kv]
        self.cache.prefill_kv = []
        self.prefill_tokens += len(new)
        self.prefix_hit_tokens += n_pre
        return self.head(h[0, -1:]).float()[0], kv

    def _prefill_batch(self, prompts: list):
        """Prefills several prompts (no cached prefix) in one forward, right-padded: causal
        attention never lets a real token see the padding after it, so each prompt's keys, values
        and last logits are those of its own prefill. Returns [(logits [V], kv)] in order."""
        P = [len(p) for p in prompts]
        ids = torch.zeros((len(prompts), max(P)), dtype=torch.long)
        for i, p in enumerate(prompts):
            ids[i, :P[i]] = torch.tensor(p)
        ids = ids.to(self.device)
        pos = torch.arange(max(P), device=self.device)[None].expand(len(prompts), -1)
        self.cache.mode, self.cache.prefill_kv, self.cache.prefix = "prefill", [], None
        try:
            h = self._layers(self.inner.embed_tokens(ids), pos, None)
        finally:
            self.cache.mode = "decode"
        kv_all, self.cache.prefill_kv = self.cache.prefill_kv, []
        last = h[torch.arange(len(prompts), device=self.device), torch.tensor(P, device=self.device) - 1]
        logits = self.head(last).float()
        self.prefill_tokens += sum(P)
        return [(logits[i], [(k[i, :, :P[i]], v[i, :, :P[i]]) for k, v in kv_all]) for i in range(len(prompts))]

    def _decode(self, tokens_B):
        B = len(self.rows)
        rows = torch.arange(B, device=self.device)
        pos = self.lengths.to(self.device)
        self.cache.rows, self.cache.write_pos = rows, pos
        self.cache.used = int(self.lengths.max()) + 1
        mask = (torch.arange(self.cache.used, device=self.device)[None, :] <= pos[:, None])[:, None, None, :]
        x = self.inner.embed_tokens(tokens_B[:, None])
        h = self._layers(x, pos[:, None], mask)
        self.lengths = self.lengths + 1
        self.steps += 1
        return self.head(h[:, -1]).float()

    # ------------------------------------------------------------------ public
    @staticmethod
    def _shared_prompt(specs: list) -> list:
        prompt = specs[0].prompt_ids
        if any(s.prompt_ids is not prompt and s.prompt_ids != prompt for s in specs):
            raise ValueError("the rows of one request must share one prompt")
        return prompt

    @torch.inference_mode()
    def admit(self, specs: list, job) -> None:
        """Prefills the request's prompt once and adds its rows (all share specs[0].prompt_ids)."""
        prompt = self._shared_prompt(specs)
        self._add_rows(specs, job, *self._prefill(prompt))

    @torch.inference_mode()
    def admit_many(self, requests: list) -> list:
        """Admits several requests (each (specs, job)) at one step boundary. Prompts with a cached
        prefix prefill alone (only their new tokens); the others prefill together in padded batches
        of at most `prefill_batch_tokens` tokens, instead of one small forward each. Returns one
        entry per request: None, or the exception that refused it (the others are admitted)."""
        errors, prompts, hits = [None] * len(requests), [None] * len(requests), [None] * len(requests)
        for i, (specs, _job) in enumerate(requests):
            try:
                prompts[i] = self._shared_prompt(specs)
            except ValueError as e:
                errors[i] = e
                continue
            hits[i] = self._lookup(prompts[i])
        fresh = [i for i in range(len(requests)) if errors[i] is None and hits[i][0] == 0]
        prefilled = {}
        if len(fresh) > 1:
            for group in self._prefill_groups(fresh, prompts):
                try:
                    for i, out in zip(group, self._prefill_batch([prompts[i] for i in group])):
                        prefilled[i] = out
                except Exception as e:  # noqa: BLE001 - refuses this group's requests, not the rest
                    for i in group:
                        errors[i] = e
        for i, (specs, job) in enumerate(requests):
            if errors[i] is not None:
                continue
            try:
                out = prefilled[i] if i in prefilled else self._prefill(prompts[i], hits[i])
                self._add_rows(specs, job, *out)
            except Exception as e:  # noqa: BLE001
                errors[i] = e
        return errors

    def _prefill_groups(self, idx: list, prompts: list) -> list:
        """Indices grouped (by length, to pad little) so that each padded group stays within
        prefill_batch_tokens; a longer prompt gets a group of its own."""
        order = sorted(idx, key=lambda i: len(prompts[i]))
        groups, cur, cur_len = [], [], 0
        for i in order:
            n = len(prompts[i])
            if cur and max(cur_len, n) * (len(cur) + 1) > self.prefill_batch_tokens:
                groups.append(cur)
                cur, cur_len = [], 0
            cur.append(i)
            cur_len = max(cur_len, n)
        if cur:
            groups.append(cur)
        return groups

    def _add_rows(self, specs: list, job, logits, kv) -> None:
        prompt = specs[0].prompt_ids
        P, n, B = len(prompt), len(specs), len(self.rows)
        budget_max = max(min(s.max_tokens, self.max_context - P) for s in specs)
        self._ensure(B + n, min(P + budget_max, self.max_context))
        for l, (k, v) in enumerate(kv):
            self.cache.k[l][B:B + n, :, :P] = k
            self.cache.v[l][B:B + n, :, :P] = v
        for i, s in enumerate(specs):
            self.rows.append(_Row(s, job, i, min(s.max_tokens, self.max_context - P)))
        new_logits = logits[None].expand(n, -1)
        self.logits = new_logits.clone() if self.logits is None else torch.cat([self.logits, new_logits])
        self.lengths = torch.cat([self.lengths, torch.full((n,), P, dtype=torch.long)])

    @torch.inference_mode()
    def step(self) -> list:
        """Samples one token for every running row, drops the finished rows and runs one decode
        forward for the rest. Returns the finished rows' (job, index, RowResult)."""
        rows, dev = self.rows, self.device
        specs = [r.spec for r in rows]
        temps = torch.tensor([max(s.temperature, 0.0) for s in specs], dtype=torch.float32, device=dev)
        greedy = temps <= 0
        top_p = torch.tensor([s.top_p for s in specs], dtype=torch.float32, device=dev)
        uni = torch.tensor([float(torch.rand((), generator=s.generator)) if s.temperature > 0 else 0.0
                            for s in specs], dtype=torch.float32, device=dev)
        tok, lp, lps = _pick(self.logits, temps, top_p, uni, greedy)
        tok_l, lp_l = tok.tolist(), lp.tolist()
        keep, done = [], []
        for b, r in enumerate(rows):
            t = tok_l[b]
            r.ids.append(t)
            r.lps.append(lp_l[b])
            if r.spec.top_logprobs:
                v, k = lps[b].topk(r.spec.top_logprobs)
                r.top.append(list(zip(k.tolist(), v.tolist())))
            if t in self.eos_ids:
                r.finish = "stop"
            elif r.spec.stop:
                text = self.tok.decode(r.ids, skip_special_tokens=False)
                cut = _stop_hit(text, r.spec.stop)
                if cut >= 0:
                    r.finish, r.text = "stop", text[:cut]
            if r.finish is None and len(r.ids) >= r.budget:
                r.finish = "length"
            (done if r.finish else keep).append(b)
        finished = [(rows[b].job, rows[b].index, self._result(rows[b])) for b in done]
        if self.prefixes:
            for b in done:  # prompt + completion but the last token (never fed back: no KV)
                n = int(self.lengths[b])
                seq = rows[b].spec.prompt_ids + rows[b].ids[:n - len(rows[b].spec.prompt_ids)]
                self.prefixes.add(seq, [(k[b, :, :n].clone(), v[b, :, :n].clone())
                                        for k, v in zip(self.cache.k, self.cache.v)])
        if done:
            self._compact(keep)
            tok = tok[keep] if keep else tok[:0]
        if self.rows:
            self.logits = self._decode(tok.to(dev))
        else:
            self.logits = None
            self.lengths = torch.zeros(0, dtype=torch.long)
        return finished

    def reset(self) -> None:
        """Forgets every running row (after a failed step)."""
        self.invalidate()
        self.rows, self.logits = [], None
        self.lengths = torch.zeros(0, dtype=torch.long)

    def _compact(self, keep: list) -> None:
        """Moves the kept rows to slots 0..len(keep)-1 (only rows whose slot changes are copied)."""
        moves = [(dst, src) for dst, src in enumerate(keep) if dst != src]
        if moves:
            dst = torch.tensor([d for d, _ in moves], device=self.device)
            src = torch.tensor([s for _, s in moves], device=self.device)
            used = int(self.lengths.max())
            for store in (self.cache.k, self.cache.v):
                for t in store:
                    t[dst, :, :used] = t[src, :, :used]
        idx = torch.tensor(keep, dtype=torch.long)
        self.rows = [self.rows[b] for b in keep]
        self.lengths = self.lengths[idx]
        self.logits = self.logits[idx.to(self.device)] if keep else None
        if not keep:
            self._release_if_large()

    def _release_if_large(self) -> None:
        # an idle engine keeps its buffers for the next batch unless they grew big (long contexts)
        if self.cap_rows * self.cap_len * self.kv_heads * self.head_dim * self.n_layers * 2 * 4 > (256 << 20):
            self.cache.k, self.cache.v = [], []
            self.cap_rows = self.cap_len = 0

    def _result(self, r: _Row) -> RowResult:
        text = r.text
        if text is None:
            body = r.ids
            if r.finish == "stop" and body and body[-1] in self.eos_ids:
                body = body[:-1]
            text = self.tok.decode(body, skip_special_tokens=False)
        return RowResult(r.ids, r.lps, r.top, r.finish, text)


class StaticEngine:
    """Any other model: the padded batch of sampler.generate; rows admitted while idle only."""

    can_join = False

    def __init__(self, run_batch):
        self.run_batch = run_batch  # list[RowSpec] -> list[RowResult]
        self.pending: list = []
        self.steps = 0
        self.prefill_tokens = 0

    @property
    def active(self) -> int:
        return len(self.pending)

        self.prefix_hit_tokens = 0

    def reset(self) -> None:
        self.pending = []

    def invalidate(self) -> None:
        pass

    def admit(self, specs: list, job) -> None:
        self.pending.extend((job, i, s) for i, s in enumerate(specs))

    def step(self) -> list:
        batch, self.pending = self.pending, []
        results = self.run_batch([s for _, _, s in batch])
        self.steps += 1
        return [(job, i, res) for (job, i, _), res in zip(batch, results)]


def make_engine(model, tokenizer, eos_ids: list, pad_id: int, max_context: int, prefix_cache_bytes: int = 128 << 20):
    if supports_fast_path(model):
        return ContinuousEngine(model, tokenizer, eos_ids, max_context, prefix_cache_bytes=prefix_cache_bytes)
    return StaticEngine(lambda rows: generate(model, tokenizer, rows, eos_ids, pad_id, max_context))
