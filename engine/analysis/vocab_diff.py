"""Two tokenizers side by side, by their tokens' bytes: what they share, what only one has (by
script and length, longest first), how far their merge orders agree, and, over a text, the words
they split differently and the tokens each needs.

Tokens are compared as byte strings, the way the ecosystem's files spell them (a SentencePiece
``▁`` is its three bytes, not a space), specials left out. A token's rank is its place in its
tokenizer (merges in learned order); the merge orders part at the first merge whose token
differs, and the rank correlation is Spearman's over the tokens both have.

Example::

    diff = vocab_diff(a, b)
    diff.shared, len(diff.only_a), diff.first_parting, diff.rank_correlation
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field

import regex

from engine.analysis.script_cost import SCRIPTS, ScriptShare, tokens_by_script
from engine.encode.tokenizer import Tokenizer


@dataclass(frozen=True)
class VocabDiff:
    """What :func:`vocab_diff` finds: the token counts, the shared ones, each side's own (longest
    first), the first merge (0-based) whose token differs (None: one order is the other's start),
    and Spearman's rank correlation over the shared tokens (None below two)."""

    size_a: int
    size_b: int
    shared: int
    only_a: list[bytes]
    only_b: list[bytes]
    first_parting: int | None
    rank_correlation: float | None
    merges_a: int = 0
    merges_b: int = 0


def tokens_of(tok: Tokenizer) -> list[bytes]:
    """``tok``'s tokens as byte strings, in id order, specials left out (a token spelled twice
    counted once, at its first place)."""
    seen: dict[bytes, None] = {}
    for piece in [*tok.pieces, *tok.whole_pieces]:  # (a rank file's tokens no merge makes: Llama 3's 695)
        seen.setdefault(bytes(piece), None)
    return list(seen)


def _merge_products(tok: Tokenizer) -> list[bytes]:
    return [bytes(p) for p in tok.pieces[tok.base_size:tok.base_size + len(tok.merges)]]


def spearman(xs: list[int], ys: list[int]) -> float | None:
    """Spearman's rank correlation of two equally long lists of distinct ranks (None below two)."""
    n = len(xs)
    if n < 2:
        return None
    rx = {v: i for i, v in enumerate(sorted(xs))}
    ry = {v: i for i, v in enumerate(sorted(ys))}
    d2 = sum((rx[x] - ry[y]) ** 2 for x, y in zip(xs, ys))
    return 1 - 6 * d2 / (n * (n * n - 1))


def vocab_diff(a: Tokenizer, b: Tokenizer) -> VocabDiff:
    """What ``a`` and ``b`` share and do not, by their tokens' bytes (see the module doc)."""
    ta, tb = tokens_of(a), tokens_of(b)
    rank_a = {t: i for i, t in enumerate(ta)}
    rank_b = {t: i for i, t in enumerate(tb)}
    shared = [t for t in ta if t in rank_b]
    only_a = sorted((t for t in ta if t not in rank_b), key=lambda t: (-len(t), t))
    only_b = sorted((t for t in tb if t not in rank_a), key=lambda t: (-len(t), t))
    ma, mb = _merge_products(a), _merge_products(b)
    parting = next((k for k, (x, y) in enumerate(zip(ma, mb)) if x != y), None)
    if parting is None and len(ma) != len(mb) and min(len(ma), len(mb)) == 0:
        parting = 0
    return VocabDiff(len(ta), len(tb), len(shared), only_a, only_b, parting,
                     spearman([rank_a[t] for t in shared], [rank_b[t] for t in shared]), len(ma), len(mb))


#: Tokens are grouped by their first letter's script (script_cost.SCRIPTS, in its order); then
#: digits, whitespace, punctuation and symbols, and parts of characters.
_SCRIPT = [(name, regex.compile(rf"\p{{Script={name}}}")) for name in SCRIPTS]


def script_of(token: bytes) -> str:
    """The group a token goes in: the script of its first letter, else ``digits``, ``spaces``,
    ``punctuation``, ``other``; ``bytes`` when it is not whole UTF-8 characters."""
    try:
        text = token.decode("utf-8")
    except UnicodeDecodeError:
        return "bytes"
    text = text.replace("\u2581", " ")  # SentencePiece's space
    for ch in text:
        if ch.isalpha():
            return next((name for name, rx in _SCRIPT if rx.match(ch)), "other letters")
    if any(ch.isdigit() for ch in text):
        return "digits"
    if text.strip() == "":
        return "spaces"
    if all(unicodedata.category(ch)[0] in "PS" or ch.isspace() for ch in text):
        return "punctuation"
    return "other"


def by_script(tokens: list[bytes]) -> dict[str, list[bytes]]:
    """``tokens`` grouped by :func:`script_of`, each group in the given order, the largest first."""
    groups: dict[str, list[bytes]] = {}
    for t in tokens:
        groups.setdefault(script_of(t), []).append(t)
    return dict(sorted(groups.items(), key=lambda kv: -len(kv[1])))


@dataclass(frozen=True)
class TextDiff:
    """Over a text: the tokens each tokenizer needs, its characters, the words (runs of
    non-space) the two split differently, most frequent first, with each one's pieces, and each
    script's characters with the tokens each needs there (script_cost.tokens_by_script)."""

    chars: int
    tokens_a: int
    tokens_b: int
    differing: list[tuple[str, int, list[bytes], list[bytes]]] = field(default_factory=list)
    scripts: list[ScriptShare] = field(default_factory=list)


def text_diff(a: Tokenizer, b: Tokenizer, text: str, limit: int = 20) -> TextDiff:
    """:class:`TextDiff` of ``text``: each word is encoded alone by both (its pieces compared as
    bytes); at most ``limit`` of those that differ."""
    words = Counter(regex.findall(r"\S+", text))
    differing = []
    for word, n in words.most_common():
        pa = [bytes(a.pieces[i]) for i in a.encode(word)]
        pb = [bytes(b.pieces[i]) for i in b.encode(word)]
        if pa != pb:
            differing.append((word, n, pa, pb))
            if len(differing) >= limit:
                break
    pieces_a = [bytes(a.token_bytes(i)) for i in a.encode(text)]
    pieces_b = [bytes(b.token_bytes(i)) for i in b.encode(text)]
    return TextDiff(len(text), len(pieces_a), len(pieces_b), differing, tokens_by_script(text, [pieces_a, pieces_b]))
