"""The tiny tokenizer: entities are whole tokens only when listed in --vocab-extra; otherwise the BPE
writes digits one per token, so an id no training text names is still made of trained tokens."""
import os


def _tokens(tok, text):
    return tok.convert_ids_to_tokens(tok(text, add_special_tokens=False)["input_ids"])


def test_unlisted_ids_are_prefix_and_single_digits_and_listed_ones_are_whole(corpus, tmp_path):
    from envace_worker.tiny import train_tokenizer

    plain = train_tokenizer(corpus)
    assert _tokens(plain, "e48") == ["e", "4", "8"]
    pieces = _tokens(plain, "eva@mail")
    assert len(pieces) > 1 and plain.decode(plain("eva@mail", add_special_tokens=False)["input_ids"]) == "eva@mail"

    extra = os.path.join(tmp_path, "extra.txt")
    with open(extra, "w") as f:
        f.write("e48\neva@mail\n")
    listed = train_tokenizer(corpus, vocab_extra=extra)
    assert _tokens(listed, "e48") == ["e48"]
    assert _tokens(listed, "eva@mail") == ["eva@mail"]
