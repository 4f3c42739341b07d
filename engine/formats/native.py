"""bpe-lab's own tokenizer file (versioned JSON, described in :mod:`engine.encode.lab_file`) as a
format of the registry. The structure itself is checked in :mod:`engine.encode.lab_file`, and read
and written by :mod:`engine.encode.tokenizer` (``Tokenizer.save`` and ``Tokenizer.load`` need it, and
the engine's modules import each other without cycles); this module is its hooks.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.encode.lab_file import FORMAT
from engine.encode.tokenizer import Tokenizer, load_tokenizer, save_tokenizer, tokenizer_from_dict
from engine.formats import sniff as sniffed
from engine.formats.common import Imported, fail, show
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe

def renumbered_note(tok: Tokenizer, ids: Sequence[int | None] | None, source: str = "the file") -> list[str]:
    """A warning when ``ids`` (an import's ``file_ids``) differ from the native ids of ``tok``
    (bases, then merges, then specials), with the first token that moves; else none."""
    if ids is None:
        return []
    moved = [(ours, theirs) for ours, theirs in enumerate(ids) if theirs != ours]
    if not moved:
        return []
    ours, theirs = moved[0]
    where = "has no id there" if theirs is None else f"is {theirs} there"
    return [f"native ids differ from {source}'s for {len(moved)} of {tok.vocab_size} tokens (first: "
            f"{show(tok.token_bytes(ours))} {where}, {ours} here); ids are renumbered: bases, then merges, then specials"]


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    if probe.kind != "json" or not isinstance(probe.data, dict):
        return 0
    if probe.data.get("format") == FORMAT:
        return sniffed.NATIVE
    return sniffed.OTHER_FORMAT if "format" in probe.data else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    if content is None:
        return Imported(load_tokenizer(path), "native", str(path))
    try:
        return Imported(tokenizer_from_dict(content), "native", str(path))
    except ValueError as exc:  # as load_tokenizer says it
        raise fail(path, str(exc)) from None


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    save_tokenizer(tok, path)
    return renumbered_note(tok, ids, source)


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
