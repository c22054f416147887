"""Request checks the HTTP layer runs before any work: the shapes parse_* leave open (OpenAI content
parts, seeds), AdamW's own argument rules, and size bounds that reject an oversize prompt without
rendering it."""
from __future__ import annotations

from .errors import BadRequest

MAX_MESSAGES = 4096
# torch.Generator seeds are 64-bit; choice i uses seed + i
SEED_MIN, SEED_MAX = -(1 << 63), (1 << 64) - 1
# AdamW takes any lr >= 0, but its update runs in the parameters' dtype: an lr (or lr·weight_decay)
# that float32 cannot hold makes torch raise mid-step. Far above any useful value, well inside float32.
MAX_LR = 1e3
MAX_WEIGHT_DECAY = 1e3


def text_of(content, where: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # OpenAI content parts: only text parts are understood
        out = []
        for j, p in enumerate(content):
            if not isinstance(p, dict) or p.get("type", "text") != "text" or not isinstance(p.get("text"), str):
                raise BadRequest(f"{where}.content[{j}] must be a text part {{type: 'text', text: string}}")
            out.append(p["text"])
        return "".join(out)
    raise BadRequest(f"{where}.content must be a string, an array of text parts, or null")


def check_seed(seed, n: int) -> None:
    if seed is None:
        return
    if isinstance(seed, bool) or not isinstance(seed, int) or not (SEED_MIN <= seed and seed + n - 1 <= SEED_MAX):
        raise BadRequest(f"seed must be an integer in [{SEED_MIN}, {SEED_MAX - 63}]")


def check_adamw(o) -> None:
    """AdamW's constructor rules (lr, eps, weight_decay >= 0; betas in [0, 1)) plus finite bounds."""
    if not 0 <= o.lr <= MAX_LR:
        raise BadRequest(f"lr must be in [0, {MAX_LR:g}]")
    if not 0 <= o.weight_decay <= MAX_WEIGHT_DECAY:
        raise BadRequest(f"weight_decay must be in [0, {MAX_WEIGHT_DECAY:g}]")
    if not 0 <= o.eps <= 1:
        raise BadRequest("eps must be in [0, 1]")
    if not all(0 <= b < 1 for b in o.betas):
        raise BadRequest("betas must be in [0, 1)")


def max_token_chars(tokenizer) -> int:
    """The most characters one token can stand for (its vocabulary string is at least as long as the
    text it decodes to): a prompt of more than context × this many characters cannot fit."""
    try:
        return max(1, max(len(t) for t in tokenizer.get_vocab()))
    except Exception:   # noqa: BLE001 - a tokenizer without a vocabulary listing: no early bound
        return 1 << 30
