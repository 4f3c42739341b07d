"""HuggingFace's common normalizers, applied to text before it is split and merged.

A :class:`Normalizer` is the ``"normalizer"`` object of a ``tokenizer.json`` (kept as that JSON,
so that an hf export writes it back unchanged): ``NFC``, ``NFD``, ``NFKC``, ``NFKD``,
``Lowercase``, ``Strip``, ``Prepend``, ``Replace`` and a ``Sequence`` of them, which is what real
BPE files use (Anthropic's has NFKC; SentencePiece conversions have Prepend and Replace), and
``Precompiled``: sentencepiece's normalization table (``nmt_nfkc``), as converted SentencePiece
models carry it. The table is applied by the rule of the library the file is for
(:mod:`engine.text.charsmap`): tokenizers' grapheme by grapheme (``precompiled="tokenizers"``, a
``tokenizer.json``'s), or sentencepiece's longest match (``precompiled="sentencepiece"``, what
a ``.model`` is read with). Any other type is refused by name when the normalizer is made.
Example::

    Normalizer({"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "Lowercase"}]})("ＡＢ")  # -> 'ab'

As in ``tokenizers``, special tokens are found in the text first and are not normalized
(:meth:`engine.encode.tokenizer.Tokenizer.encode` normalizes the text between them).

Every normalizer has a bound known before it runs. Its growth: each step makes a text of n
characters at most ``factor * n + added`` long (NFKC at most 18 times, a ``Replace`` of a
string by its content's length, a ``Prepend`` by its text), and a normalizer whose steps
together could grow a text more than :data:`MAX_GROWTH` times, or add more than
:data:`MAX_ADDED` characters, is refused when it is made (34 ``Replace "a" -> "aa"`` in a row
would make one ``a`` 2³⁴). A ``Replace`` by a regex, whose matches cannot be known before, is
stopped as it runs once its output would pass that bound, and is timed as a pre-tokenizer
pattern is.
"""

from __future__ import annotations

import base64
import binascii
import unicodedata
from collections.abc import Callable
from functools import partial
from typing import Any

from engine.errors import ConfigError
from engine.text.charsmap import Charsmap, CharsmapError, charsmap
from engine.text.pretokenize import bounded, compile_pattern, pattern_timeout, too_slow

#: What Rust's ``char::is_whitespace`` (Unicode's White_Space) counts, which ``Strip`` strips;
#: Python's ``str.isspace`` also counts U+001C-U+001F, which tokenizers keeps.
RUST_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                   "\u2028\u2029\u202f\u205f\u3000")

#: The most a normalizer may multiply a text's length by (NFKC and a Lowercase after it: 54).
MAX_GROWTH = 64
#: The most characters a normalizer may add to a text besides (a ``Prepend``: real ones add one).
MAX_ADDED = 1 << 12
#: The most characters one character becomes under each Unicode form (U+FDFA is 18 under NFKC
#: and NFKD); under ``str.lower`` a character becomes at most 3 (U+0130 becomes 2).
FORM_GROWTH = {"NFC": 3, "NFD": 4, "NFKC": 18, "NFKD": 18}
LOWER_GROWTH = 3

KNOWN = ("NFC", "NFD", "NFKC", "NFKD", "Lowercase", "Strip", "Prepend", "Replace", "Precompiled", "Sequence")
#: How a ``Precompiled`` table is applied: as tokenizers does (the default: the spec is
#: tokenizers' JSON), or as sentencepiece does (a ``.model``'s table).
PRECOMPILED_RULES = ("tokenizers", "sentencepiece")


class Normalizer:
    """A normalizer from its ``tokenizer.json`` object (``spec``); calling it normalizes text.
    ``precompiled`` names the rule a ``Precompiled`` step is applied by (:data:`PRECOMPILED_RULES`)."""

    def __init__(self, spec: Any, precompiled: str = "tokenizers") -> None:
        if precompiled not in PRECOMPILED_RULES:
            raise ConfigError(f"a Precompiled table is applied as {' or '.join(PRECOMPILED_RULES)} does, not {precompiled!r}")
        self.spec = spec
        self.precompiled = precompiled
        self._steps = _steps(spec, precompiled)
        factor, added = growth(spec)
        if factor > MAX_GROWTH or added > MAX_ADDED:
            grows = f"{factor:,} times longer" if factor > MAX_GROWTH else f"{added:,} characters longer"
            raise ConfigError(f"the normalizer {_short_summary(spec)} can make a text {grows}; bpe-lab applies "
                              f"normalizers that grow a text at most {MAX_GROWTH} times and by {MAX_ADDED:,} characters")

    def __call__(self, text: str) -> str:
        cap = MAX_GROWTH * len(text) + MAX_ADDED  # growth() bounds every step but a regex's, stopped at this
        for step in self._steps:
            text = step(text, cap) if isinstance(step, RegexReplace) else step(text)
        return text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Normalizer) and other.spec == self.spec and other.precompiled == self.precompiled

    def __hash__(self) -> int:
        return hash((repr(self.spec), self.precompiled))

    def __repr__(self) -> str:
        rule = f", precompiled={self.precompiled!r}" if self.precompiled != "tokenizers" else ""
        return f"Normalizer({self.spec!r}{rule})"

    @property
    def summary(self) -> str:
        """The steps by name, e.g. ``NFKC`` or ``Prepend('▁') + Replace(' ', '▁')``."""
        return _summary(self.spec)


def _summary(spec: dict[str, Any]) -> str:
    kind = spec["type"]
    if kind == "Sequence":
        return " + ".join(_summary(s) for s in spec["normalizers"]) or "nothing"
    if kind == "Prepend":
        return f"Prepend({spec['prepend']!r})"
    if kind == "Replace":
        pattern = spec["pattern"]
        return f"Replace({pattern.get('String', pattern.get('Regex'))!r}, {spec['content']!r})"
    if kind == "Precompiled":
        return "Precompiled (sentencepiece's table)"
    return kind


def growth(spec: dict[str, Any]) -> tuple[int, int]:
    """``(factor, added)``: the normalizer (checked by :func:`_steps` already) makes a text of n
    characters at most ``factor * n + added`` characters long."""
    kind = spec["type"]
    if kind in FORM_GROWTH:
        return FORM_GROWTH[kind], 0
    if kind == "Lowercase":
        return LOWER_GROWTH, 0
    if kind == "Prepend":
        return 1, len(spec["prepend"])
    if kind == "Replace":
        ((how, source),) = spec["pattern"].items()
        content = len(spec["content"])
        if how == "String":  # each match of len(source) characters becomes len(content)
            return max(1, -(-content // len(source))) if source else 1, 0
        return 1, 0  # a regex's matches are not known before: RegexReplace stops at the bound as it runs
    if kind == "Sequence":
        factor, added = 1, 0
        for part in spec["normalizers"]:
            f, a = growth(part)
            factor, added = min(factor * f, 1 << 62), min(added * f + a, 1 << 62)
        return factor, added
    if kind == "Precompiled":
        table = _charsmap(spec)
        return (table.longest if table is not None else 1), 0
    return 1, 0  # Strip


def _short_summary(spec: dict[str, Any]) -> str:
    text = _summary(spec)
    return text if len(text) <= 60 else text[:57] + "..."


def lowercase(text: str) -> str:
    """``text`` lowercased a character at a time, as tokenizers' ``Lowercase`` does: a capital
    sigma is always σ (``str.lower`` makes a word's last one ς). Example: ``lowercase("ÅΣ") -> 'åσ'``"""
    return text.lower() if "\u03a3" not in text else "".join(map(str.lower, text))


def _steps(spec: Any, precompiled: str) -> list[Callable[..., str]]:
    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
        raise ConfigError("a normalizer is an object with a \"type\"")
    kind = spec["type"]
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return [partial(unicodedata.normalize, kind)]
    if kind == "Lowercase":
        return [lowercase]
    if kind == "Strip":
        left, right = spec.get("strip_left", True), spec.get("strip_right", True)
        if not (isinstance(left, bool) and isinstance(right, bool)):
            raise ConfigError("a Strip normalizer's strip_left and strip_right are true or false")

        def strip(text: str) -> str:
            if left:
                text = text.lstrip(RUST_WHITESPACE)
            if right:
                text = text.rstrip(RUST_WHITESPACE)
            return text

        return [strip]
    if kind == "Prepend":
        prepend = spec.get("prepend")
        if not isinstance(prepend, str):
            raise ConfigError("a Prepend normalizer needs \"prepend\": text")
        return [lambda text: prepend + text if text else text]
    if kind == "Replace":
        return [_replace(spec)]
    if kind == "Sequence":
        parts = spec.get("normalizers")
        if not isinstance(parts, list):
            raise ConfigError("a Sequence normalizer needs \"normalizers\": a list")
        return [step for part in parts for step in _steps(part, precompiled)]
    if kind == "Precompiled":
        table = _charsmap(spec)
        if table is None:  # tokenizers reads an empty table as no table
            return []
        return [table.sentencepiece if precompiled == "sentencepiece" else table.tokenizers]
    raise ConfigError(f"the {kind} normalizer is not supported (bpe-lab applies {', '.join(KNOWN)})")


def _charsmap(spec: dict[str, Any]) -> Charsmap | None:
    """The table of a ``Precompiled`` step (base64 in ``precompiled_charsmap``), None when empty."""
    encoded = spec.get("precompiled_charsmap")
    if not isinstance(encoded, str):
        raise ConfigError("a Precompiled normalizer needs \"precompiled_charsmap\": base64 text")
    try:
        blob = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise ConfigError("a Precompiled normalizer's table is not base64") from None
    if not blob:
        return None
    try:
        return charsmap(blob)
    except CharsmapError as exc:
        raise ConfigError(f"a Precompiled normalizer's table is malformed: {exc}") from None


def _replace(spec: dict[str, Any]) -> Callable[..., str]:
    pattern, content = spec.get("pattern"), spec.get("content")
    if not isinstance(content, str) or not isinstance(pattern, dict) or len(pattern) != 1:
        raise ConfigError("a Replace normalizer needs \"pattern\": {\"String\" or \"Regex\": ...} and \"content\": text")
    ((kind, source),) = pattern.items()
    if not isinstance(source, str) or kind not in ("String", "Regex"):
        raise ConfigError("a Replace normalizer's pattern is {\"String\": text} or {\"Regex\": pattern}")
    if kind == "String":
        if not source:
            return lambda text: text  # tokenizers replaces nothing for an empty string
        return lambda text: text.replace(source, content)
    return RegexReplace(source, content)


class Grown(Exception):
    """A regex replacement's output passed its bound (caught and reported by :class:`RegexReplace`)."""


class RegexReplace:
    """A ``Replace`` by a regex: bounded in time as a pre-tokenizer pattern is, and stopped once
    its output would be longer than the cap its normalizer gives."""

    def __init__(self, source: str, content: str) -> None:
        self.source, self.content = source, content
        self.regex = compile_pattern(source)

    def __call__(self, text: str, cap: int) -> str:
        length = len(text)
        content = self.content

        def replacement(match: Any) -> str:
            nonlocal length
            length += len(content) - (match.end() - match.start())
            if length > cap:
                raise Grown
            return content

        try:  # a regex may backtrack catastrophically: bound its time as a pre-tokenizer's
            with bounded(pattern_timeout(len(text))) as bound:
                return self.regex.sub(replacement, text, **bound)
        except TimeoutError:
            raise too_slow(self.source, len(text)) from None
        except Grown:
            raise ConfigError(f"the normalizer step Replace({_short(self.source)}, {_short(content)}) makes a text of "
                              f"{len(text):,} characters more than {cap:,} long, the bound for it") from None


def _short(text: str) -> str:
    shown = repr(text)
    return shown if len(shown) <= 24 else shown[:21] + "..."
