"""Finding a token by text, bytes or id, as typed in the find dialog."""

from __future__ import annotations

import re
from collections.abc import Callable

from engine import Trainer

_HEX = re.compile(r"^\[?\s*([0-9a-fA-F]{2}(?:\s+[0-9a-fA-F]{2})*)\s*\]?$")


def parse_query(query: str) -> tuple[str, int | bytes]:
    """``#12``/``12`` -> ("id", 12); ``[e4 b8]`` -> ("bytes", b"\\xe4\\xb8"); else ("text", bytes).

    ``·`` in text stands for a space and ``↵`` for a newline, as the panes show them.
    """
    q = query.strip()
    if re.fullmatch(r"#?\d+", q):
        return "id", int(q.lstrip("#"))
    match = _HEX.match(q)
    if match and (q.startswith("[") or " " in q):
        return "bytes", bytes.fromhex(match.group(1))
    text = query.replace("·", " ").replace("↵", "\n")
    return "text", text.encode("utf-8")


def find_token(trainer: Trainer, query: str, our_id: Callable[[int], int | None] | None = None) -> int | None:
    """The token the query names: an id, exact bytes, or else the shortest token containing it.

    ``our_id`` reads an id as the user sees ids (a replayed tokenizer's file's) into the trainer's."""
    if not query.strip():
        return None
    kind, value = parse_query(query)
    vocab = trainer.vocab
    if kind == "id":
        if our_id is not None:
            value = our_id(value)
            if value is None:
                return None
        return value if 0 <= value < len(vocab) else None
    try:
        return vocab.index(value)
    except ValueError:
        pass
    containing = [i for i, data in enumerate(vocab) if value in data]
    return min(containing, key=lambda i: (len(vocab[i]), i)) if containing else None


_BYTES_AT = re.compile(r"\[\s*([0-9a-fA-F]{2}(?:\s+[0-9a-fA-F]{2})*)\s*\]")


def parse_tokens(text: str) -> list[bytes]:
    """Tokens as typed (the panes' notation), separated by spaces: ``·`` is a space and ``↵``
    a newline inside a token, ``[e4 b8]`` stands for bytes, and the two mix (``，[e5]``).

    Example: ``parse_tokens("·t he")`` -> ``[b" t", b"he"]``; ``parse_tokens("[e4 b8] [ad]")``
    -> ``[b"\\xe4\\xb8", b"\\xad"]``.
    """
    out: list[bytes] = []
    current = bytearray()
    started = False
    i = 0
    while i < len(text):
        ch = text[i]
        match = _BYTES_AT.match(text, i) if ch == "[" else None
        if match:
            current += bytes.fromhex("".join(match.group(1).split()))
            started = True
            i = match.end()
            continue
        if ch.isspace():
            if started:
                out.append(bytes(current))
                current, started = bytearray(), False
        else:
            current += {"·": " ", "↵": "\n"}.get(ch, ch).encode("utf-8", "surrogateescape")
            started = True
        i += 1
    if started:
        out.append(bytes(current))
    return out
