"""Rank files with their ranks inline in JSON (js-tiktoken's ``"bpe_ranks"``: npm's tiktoken
``encoders/*.json``, Anthropic's ``claude.json``), read as the rank file and sidecar they stand for
(:func:`engine.formats.tiktoken_bpe.load_tiktoken`)."""

from __future__ import annotations

import binascii
import operator
from pathlib import Path
from typing import Any

from engine.formats.common import MAX_ID, check_special, fail, is_id
from engine.native import backend


def inline_rank_text(path: Path, ranks: Any) -> str:
    """A JSON file's inline ranks (js-tiktoken's ``"bpe_ranks"``: lines of a marker, the first
    rank, then base64 tokens of consecutive ranks) as a rank file's text."""
    if not isinstance(ranks, str):
        raise fail(path, "\"bpe_ranks\" must be text: lines of a marker, a rank and base64 tokens")
    out = []
    for number, line in enumerate(ranks.split("\n"), 1):
        if not line.strip():
            continue
        parts = line.split(" ")
        if len(parts) < 2 or not (parts[1].isascii() and parts[1].isdigit() and len(parts[1]) <= 10):
            raise fail(path, f"\"bpe_ranks\" line {number} is not a marker, a rank and base64 tokens")
        first = int(parts[1])
        out += [f"{token} {first + i}" for i, token in enumerate(parts[2:]) if token]
    return "\n".join(out) + "\n"


def inline_ranks(ranks: Any) -> dict[bytes, int] | None:
    """Inline ranks with nothing unusual in them, decoded at once; None for anything else (which
    :func:`inline_rank_text` and the rank file's reader then name exactly)."""
    if not isinstance(ranks, str):
        return None
    read = backend().inline_ranks(ranks)  # the compiled core reads canonical base64 in one pass
    if read is not None:
        out, count, top = read
        if top >= 0:  # ranks growing line by line: none twice, the last the highest
            return out if out and len(out) == count and top <= MAX_ID else None
        if not out or len(out) != count or b"" in out or len(set(out.values())) != count or max(out.values()) > MAX_ID:
            return None
        return out
    out = {}
    spans: list[tuple[int, int]] = []  # each line's ranks, start and end
    try:
        for line in ranks.split("\n"):
            if not line:
                continue
            _, first, *tokens = line.split(" ")
            if not (first.isascii() and first.isdigit() and len(first) <= 10):
                return None
            start = int(first)
            decoded = [binascii.a2b_base64(token, strict_mode=True) for token in tokens]
            out.update(zip(decoded, range(start, start + len(decoded))))
            spans.append((start, start + len(decoded)))
    except (ValueError, binascii.Error):
        return None
    spans.sort()
    count = sum(end - start for start, end in spans)
    # no token twice (len), none empty, no rank twice (the lines' ranks do not overlap), none too big
    if (not out or len(out) != count or b"" in out or any(map(operator.gt, [e for _, e in spans], [s for s, _ in spans[1:]]))
            or max(e for _, e in spans) - 1 > MAX_ID):
        return None
    return out


def inline_side(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """An inline-rank file's own pattern and specials, checked as a sidecar's are."""
    if not isinstance(data.get("pat_str"), str):
        raise fail(path, "\"pat_str\" must be text")
    return checked_specials(path, data)


def checked_specials(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a sidecar's, or an inline-rank file's), its ``special_tokens`` checked: token text
    to ids, each a special token bpe-lab can hold."""
    specials = data.get("special_tokens", {})
    if not isinstance(specials, dict) or not all(isinstance(k, str) and k and is_id(v) for k, v in specials.items()):
        raise fail(path, "\"special_tokens\" must map token text to ids")
    for token in specials:
        check_special(path, token)
    return data
