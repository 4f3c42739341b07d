"""Encoding: the :class:`Tokenizer` and its parts. Its merges and tokens (``vocab.py``), the
checked options (``parts.py``), how one chunk becomes ids, family by family (``models.py``;
rank-order merging in ``apply_merges.py``, tiktoken's in ``tiktoken_merge.py``), the
rule-by-rule trace (``trace.py``) and bpe-lab's own file's structure (``lab_file.py``).

The data flow: text -> chunks -> counts -> merges -> **ids** -> files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.encode.tokenizer import Tokenizer, load_tokenizer, tokenizer_from_dict, tokenizer_to_dict
    from engine.encode.trace import TRACE_LIMIT, TraceStep

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.encode.trace": ("TRACE_LIMIT", "TraceStep"),
    "engine.encode.tokenizer": ("Tokenizer", "load_tokenizer", "tokenizer_from_dict",
                                "tokenizer_to_dict"),
})
