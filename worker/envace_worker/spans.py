"""Message spans for `/v1/tokenize` in time linear in the conversation.

The direct way (render and tokenize every prefix msgs[:k+1], compare with the previous one) costs
O(messages × tokens): 1,000 messages took 31 s. Here each message's rendered block is found with a
render of at most two messages ([first, message k]: the part after `render([first])`), the blocks
are checked to concatenate to the full render, and they are tokenized as separate segments that
must concatenate to the full token list. When the template is not message-local in that way (it
groups or rewrites messages by context) the direct way runs instead, for short conversations only.
"""
from __future__ import annotations

from .errors import BadRequest

# The direct (quadratic) fallback is only run on conversations this short.
DIRECT_MAX_MESSAGES = 64


class NotMessageLocal(Exception):
    pass


def message_spans(render_text, encode, msgs: list, tools, add_generation_prompt: bool) -> dict:
    """`render_text(msgs, tools, add_generation_prompt) -> str` is the chat template;
    `encode(list[str]) -> list[list[int]]` tokenizes segments (no special tokens added)."""
    full_text = render_text(msgs, tools, add_generation_prompt)
    try:
        starts, ends, gen_header = _blocks(render_text, msgs, tools, full_text)
    except NotMessageLocal:
        return _direct(render_text, encode, msgs, tools, full_text)
    segments = [full_text[s:e] for s, e in zip(starts, ends)]
    tail = full_text[ends[-1]:]
    encoded = encode(segments + [tail, full_text, gen_header])
    full_ids, header_ids = encoded[-2], encoded[-1]
    pieces = encoded[:len(segments) + 1]
    if [t for p in pieces for t in p] != full_ids:
        # a token straddles a message boundary: token-level spans would be wrong
        return _direct(render_text, encode, msgs, tools, full_text)
    spans, pos = [], 0
    for k, ids in enumerate(pieces[:-1]):
        span = {"message": k, "role": msgs[k]["role"], "start": pos, "end": pos + len(ids)}
        if msgs[k]["role"] == "assistant" and k > 0 and header_ids and ids[:len(header_ids)] == header_ids:
            span["completion_start"] = pos + len(header_ids)
        spans.append(span)
        pos += len(ids)
    return {"token_ids": full_ids, "spans": spans}


def _blocks(render_text, msgs, tools, full_text):
    """Character [start, end) of each message's block in the full render, and the generation
    header (what add_generation_prompt appends), or NotMessageLocal."""
    try:
        first = render_text(msgs[:1], tools, False)
        with_header = render_text(msgs[:1], tools, True)
        blocks = [first] + [render_text([msgs[0], m], tools, False)[len(first):] for m in msgs[1:]]
        pair_heads_ok = all(render_text([msgs[0], m], tools, False).startswith(first) for m in msgs[1:2])
    except BadRequest:
        raise NotMessageLocal() from None
    if not with_header.startswith(first) or not pair_heads_ok:
        raise NotMessageLocal()
    base = "".join(blocks)
    if not full_text.startswith(base):
        raise NotMessageLocal()
    starts, ends, pos = [], [], 0
    for b in blocks:
        starts.append(pos)
        pos += len(b)
        ends.append(pos)
    return starts, ends, with_header[len(first):]


def _direct(render_text, encode, msgs, tools, full_text) -> dict:
    """Every prefix rendered and tokenized: exact for any prefix-stable template, quadratic."""
    if len(msgs) > DIRECT_MAX_MESSAGES:
        raise BadRequest(f"this model's chat template does not render messages independently; /v1/tokenize "
                         f"takes at most {DIRECT_MAX_MESSAGES} messages with it (got {len(msgs)})",
                         code="too_many_messages")
    texts = [render_text(msgs[:k + 1], tools, False) for k in range(len(msgs))]
    heads = [render_text(msgs[:k], tools, True) if k > 0 and msgs[k]["role"] == "assistant" else ""
             for k in range(len(msgs))]
    encoded = encode(texts + heads + [full_text])
    cur_ids, head_ids, full_ids = encoded[:len(msgs)], encoded[len(msgs):-1], encoded[-1]
    prev, spans = [], []
    for k, cur in enumerate(cur_ids):
        if cur[:len(prev)] != prev:
            raise BadRequest("this model's chat template is not prefix-stable; cannot give message spans",
                             code="template_not_prefix_stable", status=422)
        span = {"message": k, "role": msgs[k]["role"], "start": len(prev), "end": len(cur)}
        head = head_ids[k]
        if heads[k] and cur[:len(head)] == head and len(prev) <= len(head) <= len(cur):
            span["completion_start"] = len(head)
        spans.append(span)
        prev = cur
    return {"token_ids": full_ids, "spans": spans}
