"""Loads the policy (a Hugging Face directory or the built-in tiny model), optionally wraps it with
LoRA, and keeps a frozen reference for the KL term."""
from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field

import torch

from .tiny import init_tiny, save_model

_DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}


@dataclass
class HostOptions:
    model: str | None = None
    init: str | None = None          # "tiny"
    corpus: str | None = None
    size: str = "xs"
    vocab_extra: str | None = None
    seed: int = 0
    save_init: str | None = None
    lora_rank: int = 0
    dtype: str = "float32"
    device: str = "cpu"
    kl_reference: bool = True        # keep a frozen copy of the starting weights (full fine-tuning)


@dataclass
class ModelHost:
    model: torch.nn.Module
    tokenizer: object
    name: str
    device: torch.device
    dtype: torch.dtype
    lora: bool
    ref_model: torch.nn.Module | None
    max_context: int
    eos_ids: list = field(default_factory=list)

    @property
    def base(self):
        """The underlying transformers model (inside PEFT's wrapper when LoRA is on)."""
        return self.model.get_base_model() if self.lora else self.model


def load_host(opts: HostOptions) -> ModelHost:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if opts.dtype not in _DTYPES:
        raise ValueError(f"unknown dtype {opts.dtype!r}; expected one of {sorted(_DTYPES)}")
    dtype = _DTYPES[opts.dtype]
    device = torch.device(opts.device)
    if opts.model:
        tokenizer = AutoTokenizer.from_pretrained(opts.model)
        model = AutoModelForCausalLM.from_pretrained(opts.model, dtype=dtype, attn_implementation="sdpa")
        name = os.path.basename(os.path.normpath(opts.model))
    elif opts.init == "tiny":
        if not opts.corpus:
            raise ValueError("--init tiny needs --corpus FILE")
        model, tokenizer = init_tiny(opts.corpus, opts.size, opts.seed, opts.vocab_extra)
        if opts.save_init:
            save_model(model, tokenizer, opts.save_init)
        model = model.to(dtype)
        name = f"tiny-{opts.size}"
    else:
        raise ValueError("give --model PATH or --init tiny --corpus FILE")
    model.config.use_cache = True
    model.to(device)
    model.train()  # no dropout in these configs; train() only matters for models that have it
    for p in model.parameters():
        p.requires_grad_(True)

    lora = opts.lora_rank > 0
    ref = None
    if lora:
        from peft import LoraConfig, get_peft_model

        torch.manual_seed(opts.seed)
        cfg = LoraConfig(
            r=opts.lora_rank,
            lora_alpha=2 * opts.lora_rank,
            lora_dropout=0.0,
            target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
            task_type="CAUSAL_LM",
        )
        model = get_peft_model(model, cfg)
    elif opts.kl_reference:
        ref = copy.deepcopy(model).eval()
        for p in ref.parameters():
            p.requires_grad_(False)

    eos = set()
    for tok in ("<|im_end|>", "<|endoftext|>"):
        tid = tokenizer.convert_tokens_to_ids(tok)
        if isinstance(tid, int) and tid != getattr(tokenizer, "unk_token_id", None):
            eos.add(tid)
    cfg_eos = getattr(model.config, "eos_token_id", None)
    if tokenizer.eos_token_id is not None:
        eos.add(tokenizer.eos_token_id)
    if isinstance(cfg_eos, int):
        eos.add(cfg_eos)
    elif isinstance(cfg_eos, (list, tuple)):
        eos.update(cfg_eos)
    max_ctx = int(getattr(model.config, "max_position_embeddings", 4096) or 4096)
    return ModelHost(model, tokenizer, name, device, dtype, lora, ref, max_ctx, sorted(eos))

