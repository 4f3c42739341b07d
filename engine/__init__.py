"""bpe-lab's engine: exact, incremental, undoable BPE training and the tokenizers it makes.

Train, step, undo, save (``tests/test_import_hygiene.py`` runs this example)::

    >>> from engine import TrainConfig, Tokenizer, Trainer
    >>> trainer = Trainer("low lower lowest", TrainConfig(base="chars", pretokenizer="none", max_merges=4))
    >>> [trainer.token_text(merge.new_id) for merge in trainer.train()]  # train to the stop rule
    ['lo', 'low', ' low', ' lowe']
    >>> trainer.undo().step, trainer.steps, trainer.step().step  # undo merge 4, step: it comes back
    (4, 3, 4)
    >>> trainer.tokenizer().save("tokenizer.json")  # native JSON, written atomically
    >>> Tokenizer.load("tokenizer.json").encode(" lowest")
    [12, 6, 7]

This package's names are its public surface: what a script or the app needs. Its public
modules are the ones without a leading underscore (``engine.corpus``, ``engine.tokenizer``, ...);
``engine._pairstate``, ``engine._checkpoints`` and the other ``_name`` modules are internals.
Two subpackages are public too and load only when used, to keep start-up cheap:
``engine.formats`` (tokenizer files of other libraries; :func:`load_any` and
:func:`export_tokenizer` are here as well) and ``engine.analysis`` (curves, baselines,
comparisons).

Every error the engine raises for bad input is a :class:`BpeLabError` (a ``ValueError``) whose
message is one line. Pure Python; never imports textual, rich or the app.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._chunktable import MAX_CHUNK_BYTES, MAX_TABLE_BYTES
from ._events import Candidate, Merge
from ._gcpause import gc_paused
from ._version import VERSION
from .bytelevel import hf_byte_rank
from .config import MAX_VOCAB, MAX_VOCAB_BYTES, PRETOKENIZERS, TIE_RULES, TrainConfig
from .display import hex_bytes, inert, invisible_name, mark_edges, token_display, visible_text
from .errors import (
    MAX_APP_CORPUS_BYTES,
    MAX_FILE_BYTES,
    MAX_STREAM_BYTES,
    BpeLabError,
    ConfigError,
    CorpusError,
    CountsError,
    ExportError,
    FileTooLargeError,
    MergeError,
    PatternError,
    PatternTimeoutError,
    TokenIdError,
    TokenizerFileError,
    WriteError,
    one_line,
    reading_file,
    size_text,
)
from .io import (
    BoundedInput,
    atomic_write_bytes,
    atomic_write_text,
    check_folder,
    check_target,
    open_bounded,
    parse_json,
    read_bounded,
    refuse_collisions,
    refuse_inputs,
)
from .pretokenize import FILE_PATTERNS, NAMED_PATTERNS, PreTokenizer, compile_pattern, pretokenizer_for, pretokenizer_named
from .tokenizer import TRACE_LIMIT, Tokenizer, TraceStep, load_tokenizer, tokenizer_from_dict, tokenizer_to_dict

if TYPE_CHECKING:
    from ._branches import Branch
    from ._branches import check_data as check_branch_data
    from .corpus import Corpus, count_corpus, decode_corpus, is_stdin, read_corpus, read_corpus_bytes, streamable
    from .counts import (
        ChunkTable,
        Pruned,
        check_usable,
        count_inputs,
        counts_from_bytes,
        expand_inputs,
        merge_tables,
        prune,
        read_counts,
        require_pyarrow,
        write_counts,
    )
    from .formats import export_tokenizer, load_any
    from .inspect import MergeTree, TokenInfo, token_info
    from .trainer import Trainer

#: Names served by a module that is imported on first use (see :func:`__getattr__`): what
#: ``bpe-lab encode`` never needs (training, counting, corpora, the inspector, branches, the
#: file formats) stays unloaded until something asks for it (tests/cli/test_cli_startup.py).
_LAZY = {
    **dict.fromkeys(("load_any", "export_tokenizer"), "engine.formats"),
    **dict.fromkeys(("Branch", "check_branch_data"), "engine._branches"),
    **dict.fromkeys(("Corpus", "count_corpus", "decode_corpus", "is_stdin", "read_corpus",
                     "read_corpus_bytes", "streamable"), "engine.corpus"),
    **dict.fromkeys(("ChunkTable", "Pruned", "check_usable", "count_inputs", "counts_from_bytes", "expand_inputs",
                     "merge_tables", "prune",
                     "read_counts", "require_pyarrow", "write_counts"), "engine.counts"),
    **dict.fromkeys(("MergeTree", "TokenInfo", "token_info"), "engine.inspect"),
    "Trainer": "engine.trainer",
}
#: A lazy name whose module spells it otherwise.
_RENAMED = {"check_branch_data": "check_data"}

__all__ = [
    "BoundedInput",
    "BpeLabError",
    "Branch",
    "Candidate",
    "ChunkTable",
    "ConfigError",
    "CountsError",
    "Corpus",
    "CorpusError",
    "ExportError",
    "FileTooLargeError",
    "MAX_CHUNK_BYTES",
    "MAX_FILE_BYTES",
    "MAX_APP_CORPUS_BYTES",
    "MAX_STREAM_BYTES",
    "MAX_TABLE_BYTES",
    "MAX_VOCAB",
    "MAX_VOCAB_BYTES",
    "Merge",
    "MergeError",
    "MergeTree",
    "FILE_PATTERNS",
    "NAMED_PATTERNS",
    "PRETOKENIZERS",
    "PatternError",
    "PatternTimeoutError",
    "PreTokenizer",
    "Pruned",
    "TIE_RULES",
    "TRACE_LIMIT",
    "TokenIdError",
    "TokenInfo",
    "Tokenizer",
    "TokenizerFileError",
    "TraceStep",
    "TrainConfig",
    "Trainer",
    "WriteError",
    "atomic_write_bytes",
    "atomic_write_text",
    "check_branch_data",
    "check_folder",
    "check_target",
    "check_usable",
    "compile_pattern",
    "count_corpus",
    "count_inputs",
    "counts_from_bytes",
    "decode_corpus",
    "expand_inputs",
    "export_tokenizer",
    "gc_paused",
    "hex_bytes",
    "hf_byte_rank",
    "inert",
    "invisible_name",
    "is_stdin",
    "load_any",
    "load_tokenizer",
    "mark_edges",
    "merge_tables",
    "one_line",
    "parse_json",
    "open_bounded",
    "pretokenizer_for",
    "pretokenizer_named",
    "prune",
    "read_counts",
    "read_bounded",
    "read_corpus",
    "read_corpus_bytes",
    "reading_file",
    "refuse_collisions",
    "refuse_inputs",
    "require_pyarrow",
    "size_text",
    "streamable",
    "token_display",
    "token_info",
    "tokenizer_from_dict",
    "tokenizer_to_dict",
    "visible_text",
    "write_counts",
]

__version__ = VERSION

__bpe_lab__ = True  # tui.main checks it: this `engine` is bpe-lab's, not another distribution's


def __getattr__(name: str) -> Any:
    """A name of :data:`_LAZY` imports its module only when first asked for: ``bpe-lab encode``
    loads neither the trainer nor the corpus readers, ``bpe-lab train`` never the file formats."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'engine' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), _RENAMED.get(name, name))
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
