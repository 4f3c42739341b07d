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

This package's names are what a script needs (``docs/engine.md`` documents each). The rest of
the engine is in rooms that follow the data's way, each a subpackage whose ``__all__`` says what
the rest of the project may import from it:

- ``engine.text``: normalizers, pre-tokenizers and their patterns, the byte-level map, display;
- ``engine.corpus``: bounded reading and atomic writing, corpora, counting;
- ``engine.train``: the trainer and its parts (pair state, choosing, timeline, branches);
- ``engine.encode``: the tokenizer and its parts (vocabulary, models, trace, bpe-lab's file);
- ``engine.native``: the optional compiled core, behind one door;
- ``engine.formats``: other libraries' tokenizer files; ``engine.analysis``: curves, baselines,
  comparisons and the inspector.

Every error the engine raises for bad input is a :class:`BpeLabError` (a ``ValueError``) whose
message is one line. Pure Python; never imports textual, rich or the app. Names load when first
used, so ``bpe-lab encode`` never loads the trainer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.errors import (
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
)
from engine.lazy import exports
from engine.version import VERSION

if TYPE_CHECKING:
    from engine.analysis.inspector import TokenInfo, token_info
    from engine.config import PRETOKENIZERS, TIE_RULES, TrainConfig
    from engine.corpus.reading import Corpus, count_corpus, read_corpus
    from engine.encode.tokenizer import Tokenizer, load_tokenizer
    from engine.formats import export_tokenizer, load_any
    from engine.text.pretokenize import NAMED_PATTERNS, PreTokenizer, pretokenizer_named
    from engine.train.events import Candidate, Merge
    from engine.train.trainer import Trainer

_ERRORS = ("BpeLabError", "ConfigError", "CorpusError", "CountsError", "ExportError", "FileTooLargeError", "MergeError",
           "PatternError", "PatternTimeoutError", "TokenIdError", "TokenizerFileError", "WriteError")

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.errors": _ERRORS,
    "engine.config": ("TrainConfig", "TIE_RULES", "PRETOKENIZERS"),
    "engine.train.trainer": ("Trainer",),
    "engine.train.events": ("Merge", "Candidate"),
    "engine.encode.tokenizer": ("Tokenizer", "load_tokenizer"),
    "engine.formats": ("load_any", "export_tokenizer"),
    "engine.corpus.reading": ("Corpus", "read_corpus", "count_corpus"),
    "engine.text.pretokenize": ("PreTokenizer", "pretokenizer_named", "NAMED_PATTERNS"),
    "engine.analysis.inspector": ("TokenInfo", "token_info"),
})

__version__ = VERSION

__bpe_lab__ = True  # tui.main checks it: this `engine` is bpe-lab's, not another distribution's
