"""Tokenize benchmark (not a test): `python -m envace_worker.bench_tokenize [--json]`.

Message spans for conversations of growing length, computed the direct way (render and tokenize
every prefix, the algorithm /v1/tokenize used before: quadratic) and the linear way (spans.py), on
the tiny model's tokenizer and chat template, in the same run. Reports per size the seconds of each
and their ratio, and for each way how much longer 4× the messages takes (linear ≈ 4, quadratic ≈ 16).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from . import spans
from .bench import write_corpus


def _conversation(n: int) -> list:
    roles = ["user", "assistant"]
    return [{"role": "system", "content": "You are a store agent."}] + [
        {"role": roles[i % 2], "content": f"message {i} about order #W{1000 + i} " * 3} for i in range(n)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m envace_worker.bench_tokenize")
    ap.add_argument("--json", action="store_true", help="print one JSON object only")
    ap.add_argument("--sizes", default="50,100,400", help="conversation lengths (messages)")
    a = ap.parse_args(argv)
    from .tiny import init_tiny

    _, tok = init_tiny(write_corpus(os.path.join(tempfile.mkdtemp(prefix="envace-bench-"), "c.txt")), "xs", seed=0)

    def render_text(msgs, tools, gen):
        return tok.apply_chat_template(msgs, tools=tools or None, tokenize=False, add_generation_prompt=gen)

    def encode(texts):
        return [list(x) for x in tok(texts, add_special_tokens=False)["input_ids"]]

    spans.DIRECT_MAX_MESSAGES = 1 << 30   # the old algorithm, uncapped, as the baseline
    out, sizes = {}, [int(s) for s in a.sizes.split(",")]
    for n in sizes:
        msgs = _conversation(n)
        t0 = time.perf_counter()
        direct = spans._direct(render_text, encode, msgs, None, render_text(msgs, None, False))
        t1 = time.perf_counter()
        linear = spans.message_spans(render_text, encode, msgs, None, False)
        t2 = time.perf_counter()
        assert direct == linear, "the two ways disagree"
        out[n] = {"direct_s": round(t1 - t0, 4), "linear_s": round(t2 - t1, 4), "speedup": round((t1 - t0) / (t2 - t1), 1)}
        if not a.json:
            print(f"{n} messages: {out[n]}", file=sys.stderr, flush=True)
    growth = {}
    for small, big in zip(sizes, sizes[1:]):
        growth[f"{small}->{big}"] = {way: round(out[big][f"{way}_s"] / out[small][f"{way}_s"], 1)
                                     for way in ("direct", "linear")}
    print(json.dumps({"sizes": out, "growth": growth}, indent=None if a.json else 2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
