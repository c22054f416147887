"""A small synthetic corpus for tests: chat-ish text with tool calls, ids and numbers."""
import random


def write_corpus(path: str, lines: int = 400, seed: int = 0) -> str:
    rng = random.Random(seed)
    names = ["get_order", "cancel_order", "find_user", "list_items", "update_address"]
    words = "the order is pending please cancel my item user address shipped refund total price".split()
    with open(path, "w", encoding="utf-8") as f:
        for i in range(lines):
            oid = f"#W{rng.randint(1000, 9999)}"
            name = rng.choice(names)
            text = " ".join(rng.choice(words) for _ in range(rng.randint(4, 12)))
            f.write(f"user: {text} {oid}\n")
            f.write(f'<tool_call>\n{{"name": "{name}", "arguments": {{"order_id": "{oid}"}}}}\n</tool_call>\n')
            f.write(f'<tool_response>\n{{"status": "ok", "total": {rng.randint(1, 999)}.{rng.randint(0, 99)}}}\n</tool_response>\n')
    return path
