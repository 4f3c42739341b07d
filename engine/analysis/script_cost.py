"""Tokens per character by language: a text's characters grouped by script, and the tokens each
tokenizer spends on each group (``bpe-lab diff --text/--corpus`` and the app's diff view).

A letter belongs to its script (one of :data:`SCRIPTS`, the ones ``diff`` groups tokens by;
any other letter is ``other letters``). A character that is no
letter (a space, punctuation, a digit) goes with the letters before it, so ``，`` and ``。`` count
as Chinese after Chinese and as German after German; those before the first letter go with it (a
text with no letter at all is one group, ``no letters``). A token belongs to the group of the
character it starts in (a piece that starts inside a character's bytes, in that character), so
each tokenizer's tokens over all groups add up to its count for the whole text. SentencePiece's
pieces are read with ``▁`` as a space (:func:`spelling`); a tokenizer whose pieces still do not
spell the text (NFKC changed it) has no figures.

Example::

    shares = tokens_by_script("Hallo, 世界。", [[b"Hallo", b",", b" ", "世界。".encode()]])
    [(s.script, s.chars, s.tokens) for s in shares]  # [('Latin', 7, (3,)), ('Han', 3, (1,))]
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import regex

#: The scripts letters are grouped by (and ``diff`` groups tokens by), in this order.
SCRIPTS = ("Latin", "Cyrillic", "Greek", "Han", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew", "Devanagari",
           "Bengali", "Tamil", "Thai", "Georgian", "Armenian")
#: One letter run of one script (``other`` a letter of none of them, one at a time).
_RUNS = regex.compile("|".join(f"(?P<{name}>\\p{{Script={name}}}+)" for name in SCRIPTS) + r"|(?P<other>\p{L})")
OTHER_LETTERS, NO_LETTERS = "other letters", "no letters"
SPM_SPACE = "\u2581".encode()


@dataclass(frozen=True)
class ScriptShare:
    """One script's part of a text: its characters, and each tokenizer's tokens for them (None:
    its pieces do not spell the text, as a normalizing tokenizer's)."""

    script: str
    chars: int
    tokens: tuple[int | None, ...]

    def per_char(self, index: int) -> float | None:
        """Tokenizer ``index``'s tokens per character here."""
        tokens = self.tokens[index]
        return None if tokens is None or not self.chars else tokens / self.chars


def script_spans(text: str) -> list[tuple[int, str]]:
    """Where each group starts, and its script, in text order (consecutive ones differ).

    Example: ``script_spans("ab 你好。cd") -> [(0, 'Latin'), (3, 'Han'), (6, 'Latin')]``
    """
    spans: list[tuple[int, str]] = []
    for found in _RUNS.finditer(text):
        script = OTHER_LETTERS if found.lastgroup == "other" else str(found.lastgroup)
        if spans and spans[-1][1] == script:
            continue
        spans.append((found.start() if spans else 0, script))
    return spans or [(0, NO_LETTERS)]


def spelling(pieces: Sequence[bytes], text: str) -> list[bytes] | None:
    """``pieces`` as they spell ``text``: as they are, or SentencePiece's with ``▁`` as the space
    it stands for (and the space it puts before the text dropped); None when neither spells it.

    Example: ``spelling([b"\\xe2\\x96\\x81a", b"\\xe2\\x96\\x81b"], "a b") -> [b'a', b' b']``
    """
    encoded = text.encode("utf-8", "surrogatepass")
    if b"".join(pieces) == encoded:
        return list(pieces)
    spaced = [piece.replace(SPM_SPACE, b" ") for piece in pieces]
    joined = b"".join(spaced)
    if joined == encoded:
        return spaced
    if joined == b" " + encoded and spaced and spaced[0].startswith(b" "):
        return [spaced[0][1:], *spaced[1:]]
    return None


def piece_starts(pieces: Sequence[bytes], text: str) -> list[int] | None:
    """The character each piece starts in (pieces as :func:`spelling` reads them), or None when
    the pieces do not spell ``text``.

    Example: ``piece_starts([b"a", b"\\xe4", b"\\xbd\\xa0"], "a你") -> [0, 1, 1]``
    """
    spelled = spelling(pieces, text)
    if spelled is None:
        return None
    pieces = spelled
    char_starts, at = [], 0
    for ch in text:
        char_starts.append(at)
        at += len(ch.encode("utf-8", "surrogatepass"))
    starts, at = [], 0
    for piece in pieces:
        starts.append(bisect_right(char_starts, at) - 1)
        at += len(piece)
    return starts


def tokens_by_script(text: str, tokenizations: Sequence[Sequence[bytes]]) -> list[ScriptShare]:
    """Each script's characters in ``text`` and the tokens each tokenization (its pieces, in
    order) has there, the script with the most characters first."""
    spans = script_spans(text)
    where = [start for start, _ in spans]
    ends = [*where[1:], len(text)]
    chars: dict[str, int] = {}
    for (start, script), end in zip(spans, ends):
        chars[script] = chars.get(script, 0) + end - start
    counts: list[dict[str, int] | None] = []
    for pieces in tokenizations:
        starts = piece_starts(pieces, text)
        if starts is None:
            counts.append(None)
            continue
        mine = dict.fromkeys(chars, 0)
        for start in starts:
            mine[spans[bisect_right(where, start) - 1][1]] += 1
        counts.append(mine)
    order = sorted(chars, key=lambda s: -chars[s])
    return [ScriptShare(s, chars[s], tuple(None if c is None else c[s] for c in counts)) for s in order if chars[s]]
