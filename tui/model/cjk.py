"""A corpus that is mostly Chinese, Japanese or Korean opens at the character level when the user
has not chosen a base: at the bytes base such a corpus is a wall of hex (``[e5][ba][8a]…``) until
hundreds of merges have rebuilt its characters."""

from __future__ import annotations

from dataclasses import replace

from engine import TrainConfig
from tui.i18n import _
from tui.model.loaded_corpus import LoadedCorpus

#: Code points of CJK writing: kana, CJK symbols and punctuation, Hangul, the ideographs and
#: their extensions, fullwidth forms (，。 are in them).
CJK_RANGES = (
    (0x3000, 0x30FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xAC00, 0xD7AF),
    (0xF900, 0xFAFF), (0xFF00, 0xFFEF), (0x20000, 0x3134F),
)
#: "Mostly": this share of the text's non-space characters, or more.
MOSTLY = 0.5
#: The characters read to decide (the start of a large corpus says enough).
SAMPLE_CHARS = 200_000


def is_cjk(ch: str) -> bool:
    """Example: ``is_cjk("天") -> True``; ``is_cjk("，") -> True``; ``is_cjk("a") -> False``"""
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in CJK_RANGES)


def cjk_share(text: str) -> float:
    """The share of CJK characters among the non-space characters of the text's start.

    Example: ``cjk_share("天地 ab") -> 0.5``
    """
    chars = [ch for ch in text[:SAMPLE_CHARS] if not ch.isspace()]
    return sum(map(is_cjk, chars)) / len(chars) if chars else 0.0


def character_level(corpus: LoadedCorpus, config: TrainConfig) -> tuple[LoadedCorpus, TrainConfig, str | None]:
    """``corpus`` and ``config`` at the character level when the corpus is mostly CJK and opened
    at the bytes base, with a line saying so and how to switch back; else both unchanged and None.
    Only for a base the user has not chosen (the caller knows). A table, or a text with invalid
    UTF-8 (whose bytes the character base would replace), stays as it is."""
    if config.base != "bytes" or corpus.table is not None or corpus.invalid_bytes or cjk_share(corpus.text) < MOSTLY:
        return corpus, config, None
    note = _("{name} is mostly Chinese, Japanese or Korean text: training starts from its characters, not their "
             "bytes (settings `,`: base bytes to see the bytes).").format(name=corpus.name)
    return corpus.with_base("chars"), replace(config, base="chars"), note
