"""The built-in tiny model: a byte-level BPE tokenizer trained on a corpus plus a seeded,
randomly initialised Qwen3-architecture causal LM, saved in the Hugging Face layout.

Sizes (hidden / layers / heads / kv-heads / head_dim / MLP):
  xs: 128 / 4 / 4 / 2 / 32 / 384      (~0.6M non-embedding params)
  s:  256 / 4 / 4 / 2 / 64 / 768      (~2.6M)
  m:  384 / 6 / 6 / 2 / 64 / 1152     (~8.6M)
Embeddings are tied (the vocabulary dominates the parameter count at these sizes).
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import torch

# Chat-role and control tokens. Role markers and the pad/eos token are "special" (skipped by
# skip_special_tokens); the tool/think markers are plain added tokens, as in Qwen's tokenizer,
# so that they survive decoding and the TypeScript side can parse them.
SPECIAL_TOKENS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
CONTROL_TOKENS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>", "<think>", "</think>"]
# The fixed text the template writes around every tool call and tool response, and the rehearse
# role's answer tags, as whole plain tokens: a call costs ~7 tokens instead of ~19. A tiny model's
# SFT budget is a number of tokens, and shorter sequences buy the optimizer steps it needs before it
# starts copying ids from its context (issue 5's probes). They decode back to the same text, so
# text-level parsers see no difference; the longest added token wins where they overlap.
SCAFFOLD_TOKENS = [
    '<tool_call>\n{"name": "', '", "arguments": {"', '": "', '"}}\n</tool_call>',
    "<tool_response>\n", "\n</tool_response>", "<execution_result>\n", "\n</execution_result>",
]

# A compact Qwen-style template. Every message renders independently of the ones after it, so
# rendering messages[:k] is a prefix of rendering messages[:k+1] (the /v1/tokenize spans rely on it).
# Tool calls accept the OpenAI shape ({function: {name, arguments: "json string"}}) or a flat
# {name, arguments: {...}}; tool results are wrapped in <tool_response> inside a user turn.
CHAT_TEMPLATE = (
    "{%- set sys = messages[0].content if messages and messages[0].role == 'system' else none -%}"
    "{%- if tools -%}"
    "<|im_start|>system\n{% if sys %}{{ sys }}\n{% endif %}# Tools\n"
    "{% for t in tools %}{{ (t.function if t.function is defined else t) | tojson }}\n{% endfor %}"
    "<|im_end|>{{ '\\n' }}"
    "{%- elif sys is not none -%}<|im_start|>system\n{{ sys }}<|im_end|>{{ '\\n' }}"
    "{%- endif -%}"
    "{%- for m in messages -%}"
    "{%- if loop.first and m.role == 'system' -%}"
    "{%- elif m.role == 'assistant' -%}"
    "<|im_start|>assistant\n{{ m.content if m.content else '' }}"
    "{%- for tc in (m.tool_calls if m.tool_calls else []) -%}"
    "{%- set f = tc.function if tc.function is defined else tc -%}"
    "{% if loop.first and m.content %}\n{% elif not loop.first %}\n{% endif %}"
    "<tool_call>\n{\"name\": {{ f.name | tojson }}, \"arguments\": "
    "{% if f.arguments is string %}{{ f.arguments }}{% else %}{{ f.arguments | tojson }}{% endif %}}\n</tool_call>"
    "{%- endfor -%}"
    "<|im_end|>{{ '\\n' }}"
    "{%- elif m.role == 'tool' -%}"
    "<|im_start|>user\n<tool_response>\n{{ m.content }}\n</tool_response><|im_end|>{{ '\\n' }}"
    "{%- else -%}"
    "<|im_start|>{{ m.role }}\n{{ m.content if m.content else '' }}<|im_end|>{{ '\\n' }}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant{{ '\\n' }}{%- endif -%}"
)


@dataclass(frozen=True)
class TinySize:
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    mlp: int


SIZES = {
    "xs": TinySize(128, 4, 4, 2, 32, 384),
    "s": TinySize(256, 4, 4, 2, 64, 768),
    "m": TinySize(384, 6, 6, 2, 64, 1152),
}


def train_tokenizer(corpus: str, vocab_size: int = 4096, vocab_extra: str | None = None):
    """Byte-level BPE on the corpus file; digits one per token; whole extra tokens from a file."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence(
        [pre_tokenizers.Digits(individual_digits=True), pre_tokenizers.ByteLevel(add_prefix_space=False)]
    )
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        min_frequency=2,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train([corpus], trainer)
    tok.add_tokens([AddedToken(t, normalized=False, special=False) for t in CONTROL_TOKENS + SCAFFOLD_TOKENS])
    if vocab_extra:
        with open(vocab_extra, encoding="utf-8") as f:
            extra = [ln.rstrip("\n") for ln in f if ln.strip()]
        tok.add_tokens([AddedToken(t, normalized=False, special=False) for t in dict.fromkeys(extra)])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>", unk_token=None
    )
    fast.chat_template = CHAT_TEMPLATE
    fast.padding_side = "left"
    return fast


def tiny_config(vocab_size: int, size: str, eos_id: int, pad_id: int, max_positions: int = 4096):
    from transformers import Qwen3Config

    if size not in SIZES:
        raise ValueError(f"unknown tiny size {size!r}; expected one of {sorted(SIZES)}")
    z = SIZES[size]
    return Qwen3Config(
        vocab_size=vocab_size,
        hidden_size=z.hidden,
        intermediate_size=z.mlp,
        num_hidden_layers=z.layers,
        num_attention_heads=z.heads,
        num_key_value_heads=z.kv_heads,
        head_dim=z.head_dim,
        max_position_embeddings=max_positions,
        tie_word_embeddings=True,
        rope_parameters={"rope_theta": 10000.0, "rope_type": "default"},
        eos_token_id=eos_id,
        pad_token_id=pad_id,
        bos_token_id=None,
        initializer_range=0.02,
    )


def init_tiny(corpus: str, size: str = "xs", seed: int = 0, vocab_extra: str | None = None,
              vocab_size: int = 4096, max_positions: int = 4096):
    """Returns (model, tokenizer): the same seed and corpus always give the same weights."""
    from transformers import Qwen3ForCausalLM

    if not os.path.isfile(corpus):
        raise FileNotFoundError(f"corpus file not found: {corpus}")
    tokenizer = train_tokenizer(corpus, vocab_size=vocab_size, vocab_extra=vocab_extra)
    eos_id = tokenizer.convert_tokens_to_ids("<|im_end|>")
    pad_id = tokenizer.convert_tokens_to_ids("<|endoftext|>")
    config = tiny_config(len(tokenizer), size, eos_id, pad_id, max_positions)
    torch.manual_seed(seed)
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = [eos_id, pad_id]
    model.generation_config.pad_token_id = pad_id
    return model, tokenizer


def save_model(model, tokenizer, out: str) -> None:
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
