"""Encoding: the :class:`Tokenizer` and its parts, as in HuggingFace's ``tokenizers``.

- ``vocabulary.py``: what each id stands for: base units (bytes or characters, with their
  ``##``/``</w>`` marks), merges, whole pieces, specials; and a vocabulary's cut after its first
  merges (a replay's step).
- ``models.py``: how one chunk becomes ids, one class a family: merge rules, whole pieces first,
  tiktoken's merging by rank, SentencePiece's merging by score (rank-order merging itself in
  ``apply_merges.py``, tiktoken's in ``tiktoken_merge.py``).
- ``decoders.py``: ids back to text: byte-level, byte fallback, end of word, subword prefix.
- ``tokenizer.py``: the composition (specials, normalizer, pre-tokenizer, model, decoder, the
  chunk cache) and its named constructors; ``trace.py`` the rule-by-rule walkthrough;
  ``lab_file.py`` bpe-lab's own file's structure.

The data flow: text -> chunks -> counts -> merges -> **ids** -> files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.encode.decoders import ByteFallback, ByteLevel, Decoder, EndOfWord, SubwordPrefix
    from engine.encode.models import MergeRules, Model, RankMerging, ScoreMerging, WholeFirst
    from engine.encode.tokenizer import Tokenizer, load_tokenizer, tokenizer_from_dict, tokenizer_to_dict
    from engine.encode.trace import TRACE_LIMIT, TraceStep
    from engine.encode.vocabulary import BaseUnits, Vocabulary

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.encode.trace": ("TRACE_LIMIT", "TraceStep"),
    "engine.encode.tokenizer": ("Tokenizer", "load_tokenizer", "tokenizer_from_dict",
                                "tokenizer_to_dict"),
    "engine.encode.vocabulary": ("BaseUnits", "Vocabulary"),
    "engine.encode.models": ("Model", "MergeRules", "WholeFirst", "RankMerging", "ScoreMerging"),
    "engine.encode.decoders": ("Decoder", "ByteLevel", "ByteFallback", "EndOfWord", "SubwordPrefix"),
})
