"""Tokenizer files from and for the ecosystem: HuggingFace ``tokenizer.json``, GPT-2's
``vocab.json`` + ``merges.txt``, tiktoken's ``.tiktoken`` ranks, subword-nmt's codes, seed 001's
JSON, the native format (:mod:`engine.formats.native`), and (read only) Mistral's ``tekken.json``.

Each format is one :class:`Format` record in :data:`REGISTRY`: its name, the module that reads
and writes it, and what it needs. That module has the format's five hooks, all with the same
signatures: ``sniff(probe) -> int`` (how surely a file's content is this format, 0 for not),
``load(path, content, pretokenizer, need_pattern) -> Imported``, ``save(tok, path, ids, source)
-> warnings``, ``reads(path)`` and ``writes(path)`` (the files each touches). A new format is a
module and one record. This module imports no format module until one is used (``bpe-lab
train`` loads none of them: tests/cli/test_cli_startup.py).

Pure Python: never imports ``tokenizers`` or ``tiktoken`` (they only check these files in the
tests). Example::

    from engine.formats import export_tokenizer, load_any
    export_tokenizer(tok, "hf", "tokenizer.json")        # -> warnings (list of str)
    imported = load_any("tokenizer.json")                 # format detected from the file
    imported.tokenizer.encode("hi")                       # bpe-lab's ids
    imported.encode("hi")                                 # the file's ids (identical for files we write)
"""

from __future__ import annotations

import gc
import importlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from engine.encode.tokenizer import Tokenizer
    from engine.formats.common import Imported
    from engine.formats.sniff import Probe
    from engine.text.pretokenize import PreTokenizer


@dataclass(frozen=True)
class Format:
    """One tokenizer file format: ``name`` (what ``--format`` says), the ``module`` with its
    hooks (see the module doc), a one-line ``summary``, whether a pattern may be given for it
    (``takes_pattern``: the formats that hold none) and whether it writes a folder
    (``writes_folder``: the path names a directory, created as needed); ``label`` names its
    files in a message. ``keeps_normalizer``: the format can hold a normalizer; ``keeps_byte_fallback``:
    a SentencePiece-style tokenizer (byte fallback, merging by text); ``keeps_end_of_word``: an
    end-of-word suffix (CLIP's ``</w>``); ``keeps_subword_prefix``: a continuing-subword prefix
    (``##``). ``writable`` is false for a format bpe-lab reads only."""

    name: str
    module: str
    summary: str
    label: str = ""
    takes_pattern: bool = False
    keeps_normalizer: bool = False
    keeps_byte_fallback: bool = False
    writes_folder: bool = False
    writable: bool = True
    keeps_end_of_word: bool = False
    keeps_subword_prefix: bool = False

    @property
    def hooks(self) -> ModuleType:
        return importlib.import_module(self.module)

    def sniff(self, probe: Probe) -> int:
        """How surely ``probe`` (a file's content, read once) is this format: 0 not, higher surer."""
        return self.hooks.sniff(probe)

    def load(self, path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
        return self.hooks.load(path, content, pretokenizer, need_pattern)

    def save(self, tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
        return self.hooks.save(tok, path, ids, source)

    def reads(self, path: Path) -> list[Path]:
        """The files :meth:`load` reads at ``path`` (that exist or not)."""
        return self.hooks.reads(path)

    def writes(self, path: Path) -> list[Path]:
        """The files :meth:`save` writes at ``path``."""
        return self.hooks.writes(path)


#: Every format bpe-lab knows, in the order ``--format`` lists them.
REGISTRY: tuple[Format, ...] = (
    Format("hf", "engine.formats.hf", "HuggingFace tokenizer.json (a BPE model)", "tokenizer.json", keeps_normalizer=True,
           keeps_byte_fallback=True, keeps_end_of_word=True, keeps_subword_prefix=True),
    Format("gpt2", "engine.formats.gpt2", "GPT-2's vocab.json + merges.txt pair, in a folder",
           "vocab.json + merges.txt", takes_pattern=True, writes_folder=True),
    Format("tiktoken", "engine.formats.tiktoken_bpe", "tiktoken's .tiktoken ranks, with a PATH.json sidecar",
           ".tiktoken", takes_pattern=True),
    Format("seed001", "engine.formats.seed001", "seed 001's JSON (vocab list and merges)", "seed 001"),
    Format("native", "engine.formats.native", "bpe-lab's own JSON", "native", keeps_normalizer=True,
           keeps_byte_fallback=True, keeps_end_of_word=True, keeps_subword_prefix=True),
    Format("subword-nmt", "engine.formats.subword_nmt", "subword-nmt's BPE codes (learn_bpe's merges, words ending in </w>)",
           "subword-nmt codes", takes_pattern=True, keeps_end_of_word=True),
    Format("tekken", "engine.formats.tekken", "Mistral's tekken.json (tiktoken ranks and a config)", "tekken.json",
           writable=False),
    Format("sentencepiece", "engine.formats.sentencepiece", "SentencePiece .model (BPE models; others refused by type)",
           ".model", writable=False),
    Format("clip", "engine.formats.clip", "CLIP's own merges (bpe_simple_vocab_16e6.txt.gz)", "CLIP merges .txt.gz",
           writable=False),
    Format("gguf", "engine.formats.gguf", "llama.cpp's GGUF model file: its tokenizer (gpt2 and llama models)", ".gguf",
           takes_pattern=True, writable=False),
)
BY_NAME: dict[str, Format] = {f.name: f for f in REGISTRY}
#: The names of the formats bpe-lab writes (``--format`` choices).
FORMATS: tuple[str, ...] = tuple(f.name for f in REGISTRY if f.writable)

__all__ = ["BY_NAME", "CATALOG", "FORMATS", "MODELS", "REGISTRY", "Format", "Imported", "Model", "by_name",
           "detect_format", "model_named", "models_of",
           "download_size", "export_tokenizer", "fetched", "load_any", "loading_progress", "read_paths", "recover_merges",
           "renumbered_note", "sidecar_path", "tokenizer_cache", "written_paths"]

#: Names kept importable from here, from the modules that hold them (imported when first used).
_LAZY = {"Imported": "engine.formats.common", "recover_merges": "engine.formats.tiktoken_bpe",
         "sidecar_path": "engine.formats.tiktoken_bpe", "renumbered_note": "engine.formats.native",
         "loading_progress": "engine.formats.loading", "CATALOG": "engine.formats.catalog",
         "by_name": "engine.formats.catalog", "download_size": "engine.formats.catalog", "fetched": "engine.formats.catalog",
         "tokenizer_cache": "engine.formats.catalog", "MODELS": "engine.formats.catalog",
         "Model": "engine.formats.catalog", "model_named": "engine.formats.catalog",
         "models_of": "engine.formats.catalog"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def get_format(name: str) -> Format:
    """The record of format ``name``; an unknown name raises ExportError listing the choices."""
    found = BY_NAME.get(name)
    if found is None:
        from engine.errors import ExportError

        raise ExportError(f"unknown format {name!r} (choose {', '.join(FORMATS)})")
    return found


def export_tokenizer(tok: Tokenizer, fmt: str, path: str | Path, *, ids: Sequence[int | None] | None = None,
                     source: str = "the file", drop_normalizer: bool = False) -> list[str]:
    """Write ``tok`` in ``fmt`` at ``path`` (every file atomically); returns one-line warnings.

    ``gpt2`` writes ``path/vocab.json`` and ``path/merges.txt``; ``tiktoken`` writes ``path`` and
    ``path.json`` (pattern and specials). ``ids`` (our id -> id to write, e.g. an import's
    ``file_ids``) keeps another numbering where the format allows any (hf, gpt2, tiktoken);
    ``native`` cannot (its ids are structural), so a warning says when they differ from ``ids``
    (``source`` names where those came from). Raises ValueError when the format cannot hold the
    tokenizer, and for a normalizer the format cannot hold unless ``drop_normalizer``.
    """
    from engine.errors import ExportError, WriteError

    record = get_format(fmt)
    if not record.writable:
        raise ExportError(f"bpe-lab reads {fmt} files but does not write them (choose {', '.join(FORMATS)})")
    if not record.writes_folder and str(path).endswith(("/", os.sep)):
        raise WriteError(path, f"a name ending in / is a folder, and {fmt} writes a file", after="nothing was written")
    path = Path(path)
    if (tok.byte_fallback or tok.text_ranks is not None) and not record.keeps_byte_fallback:
        raise ExportError(f"{record.label} files hold no byte fallback or merging by text, which this SentencePiece-style "
                          "tokenizer has: export to hf or native")
    if tok.subword_prefix is not None and not record.keeps_subword_prefix:
        names = [f.name for f in REGISTRY if f.keeps_subword_prefix]
        raise ExportError(f"{record.label} files cannot mark the pieces that continue a word, and this tokenizer's "
                          f"pieces do with {tok.subword_prefix!r}: export to {' or '.join(names)}")
    if tok.end_of_word is not None and not record.keeps_end_of_word:
        names = [f.name for f in REGISTRY if f.keeps_end_of_word]
        keep = ", ".join(names[:-1]) + " or " + names[-1]
        raise ExportError(f"{record.label} files cannot mark where words end, and this tokenizer's words end with "
                          f"{tok.end_of_word!r}: export to {keep}")
    dropped = []
    if tok.normalizer is not None and not record.keeps_normalizer:
        if not drop_normalizer:
            raise ExportError(f"{record.label} files hold no normalizer, and this tokenizer has one "
                              f"({tok.normalizer.summary}): export to hf or native to keep it, or give --drop-normalizer")
        dropped = [f"the normalizer ({tok.normalizer.summary}) is left out: text it would change encodes differently"]
    try:
        if not record.writes_folder:
            return record.save(tok, path, ids, source) + dropped
        made = _missing_folders(path)
        try:
            return record.save(tok, path, ids, source) + dropped
        except BaseException:
            _remove_folders(made)  # a failed export leaves no empty folder behind
            raise
    except WriteError:
        raise
    except OSError as exc:  # pragma: no cover - every write goes through atomic_write_*, which raise WriteError
        raise WriteError(path, exc.strerror or str(exc), errno=exc.errno) from None


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and those of its parents that do not exist yet, deepest first."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_folders(folders: list[Path]) -> None:
    """Remove folders an export created (deepest first), if they are still empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return


def read_paths(fmt: str, path: str | Path) -> list[Path]:
    """The files :func:`load_any` reads for ``fmt`` at ``path`` (that exist or not): what an
    export must not overwrite. Example: ``read_paths("tiktoken", "t.tiktoken") -> [t.tiktoken, t.tiktoken.json]``"""
    return get_format(fmt).reads(Path(path))


def written_paths(fmt: str, path: str | Path) -> list[Path]:
    """The files :func:`export_tokenizer` writes for ``fmt`` at ``path``."""
    return get_format(fmt).writes(Path(path))


def detect_format(path: str | Path) -> str:
    """Which format a path holds (one of the :data:`REGISTRY` names), from its content (the name
    only chooses between formats the content allows)."""
    from engine.formats.sniff import sniff

    return sniff(Path(path), REGISTRY)[0].name


def load_any(path: str | Path, *, pretokenizer: PreTokenizer | None = None, fmt: str | None = None,
             need_pattern: bool = True) -> Imported:
    """Read a tokenizer in any supported format (detected from the content unless ``fmt`` is given),
    from a path or by name (``o200k``, ``llama3``: :mod:`engine.formats.catalog`, once fetched).

    ``pretokenizer`` is for the formats that hold no pattern (``.tiktoken`` without its sidecar,
    ``vocab.json`` + ``merges.txt``); elsewhere the file's own is used and giving one is an error.
    ``need_pattern=False`` (decoding) accepts a ``.tiktoken`` file with neither. Each file is read once.
    """
    # A big file makes a few hundred thousand objects and no reference cycles: the cyclic
    # collector would only walk them again and again (a tenth of a GPT-2 load), so it waits.
    from engine.formats.common import quoting_beside

    if not os.path.exists(path):  # a name (o200k, llama3) that is not a path: its fetched file
        from engine.formats.catalog import resolve

        path = resolve(str(path)) or path

    collecting = gc.isenabled()
    gc.disable()
    try:
        with quoting_beside(Path(path)):
            return _load_any(Path(path), pretokenizer, fmt, need_pattern)
    finally:
        if collecting:
            gc.enable()


def _load_any(path: Path, pretokenizer: PreTokenizer | None, fmt: str | None, need_pattern: bool) -> Imported:
    from engine.formats.common import fail
    from engine.formats.sniff import sniff

    content = None
    if fmt is None:
        record, content = sniff(path, REGISTRY)
    else:
        record = get_format(fmt)
    if pretokenizer is not None and not record.takes_pattern:
        labels = [f.label for f in REGISTRY if f.takes_pattern]
        takes = ", ".join(labels[:-1]) + " and " + labels[-1] if len(labels) > 1 else labels[0]
        raise fail(path, f"a pattern name is for {takes} files; this is {record.name}, which has its own")
    return record.load(path, content, pretokenizer, need_pattern)
