"""GPT-2's byte-to-character mapping, used by HuggingFace's ByteLevel pre-tokenizer and files.

Every byte gets a printable character: bytes that already print as themselves in Latin-1
(``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) keep their code point; the others (controls, space,
DEL, NBSP, soft hyphen) are moved to U+0100 onwards, in byte order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from itertools import accumulate


@lru_cache(maxsize=1)
def bytes_to_unicode() -> dict[int, str]:
    """Example: ``bytes_to_unicode()[ord(" ")] -> 'Ġ'``; ``bytes_to_unicode()[ord("a")] -> 'a'``"""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    chars = list(keep)
    extra = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + extra)
            extra += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


@lru_cache(maxsize=1)
def unicode_to_bytes() -> dict[str, int]:
    """The inverse of :func:`bytes_to_unicode`."""
    return {c: b for b, c in bytes_to_unicode().items()}


@lru_cache(maxsize=1)
def hf_byte_rank() -> tuple[int, ...]:
    """Where each byte sits in HuggingFace's byte-level alphabet: its characters sorted by code
    point (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``, then the moved bytes from U+0100 on).

    Example: ``hf_byte_rank()[ord("!")] -> 0``; ``hf_byte_rank()[0] -> 188``
    """
    mapping = bytes_to_unicode()
    order = sorted(range(256), key=lambda b: ord(mapping[b]))
    rank = [0] * 256
    for position, b in enumerate(order):
        rank[b] = position
    return tuple(rank)


@lru_cache(maxsize=1)
def byte_level_names() -> tuple[str, ...]:
    """Each byte's character, in byte order. Example: ``byte_level_names()[32] -> 'Ġ'``"""
    mapping = bytes_to_unicode()
    return tuple(mapping[b] for b in range(256))


@lru_cache(maxsize=1)
def not_byte_level() -> re.Pattern[str]:
    """A pattern that finds the first character that is not a byte-level character
    (``not_byte_level().search(text) is None``: every character of ``text`` is one)."""
    return re.compile("[^" + "".join(map(re.escape, byte_level_names())) + "]")


def token_to_unicode(data: bytes) -> str:
    """A token's bytes in ByteLevel characters (as in vocab.json / merges.txt)."""
    mapping = bytes_to_unicode()
    return "".join(mapping[b] for b in data)


@lru_cache(maxsize=1)
def _to_latin1() -> dict[int, int]:
    """A ``str.translate`` table taking each byte-level character to the Latin-1 character of its
    byte, and every other character below U+0100 to U+FFFF (which Latin-1 cannot encode), so that
    ``text.translate(table).encode("latin-1")`` is the token's bytes or fails."""
    table = {ord(c): b for c, b in unicode_to_bytes().items()}
    for code in range(256):
        table.setdefault(code, 0xFFFF)
    return table


def unicode_to_tokens(texts: Sequence[str]) -> list[bytes]:
    """:func:`unicode_to_token` of each text, in one pass over them all (each byte-level character
    is one byte, so the joined bytes are cut where the texts' lengths say); ValueError as there."""
    try:
        data = "".join(texts).translate(_to_latin1()).encode("latin-1")
    except UnicodeEncodeError:
        return [unicode_to_token(text) for text in texts]  # raises, naming the character
    ends = list(accumulate(map(len, texts)))
    return [data[start:end] for start, end in zip([0, *ends], ends)]


def unicode_to_token(text: str) -> bytes:
    """Inverse of :func:`token_to_unicode`; ValueError for a character outside the mapping."""
    try:
        return text.translate(_to_latin1()).encode("latin-1")
    except UnicodeEncodeError:
        mapping = unicode_to_bytes()
        bad = next(c for c in text if c not in mapping)
        raise ValueError(f"{bad!r} is not a byte-level character") from None
