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

#: What Rust's ``char::is_whitespace`` (Unicode's White_Space) counts, which ``Strip`` strips;
#: Python's ``str.isspace`` also counts U+001C-U+001F, which tokenizers keeps.
RUST_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
                   "\u2028\u2029\u202f\u205f\u3000")

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

    def __call__(self, text: str) -> str:
        for step in self._steps:
            text = step(text)
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


def _steps(spec: Any, precompiled: str) -> list[Callable[[str], str]]:
    if not isinstance(spec, dict) or not isinstance(spec.get("type"), str):
        raise ConfigError("a normalizer is an object with a \"type\"")
    kind = spec["type"]
    if kind in ("NFC", "NFD", "NFKC", "NFKD"):
        return [partial(unicodedata.normalize, kind)]
    if kind == "Lowercase":
        return [str.lower]
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


def _replace(spec: dict[str, Any]) -> Callable[[str], str]:
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
    from engine.text.pretokenize import compile_pattern

    regex = compile_pattern(source)
    return lambda text: regex.sub(lambda _: content, text)
