"""Text before it is counted: normalizers (HuggingFace's steps, SentencePiece's precompiled
charsmap), pre-tokenizers and their named patterns, the bounds a pattern must keep, GPT-2's
byte-level map, and how tokens are shown.

The data flow: text -> **normalized text -> chunks** -> counts -> merges -> ids -> files.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.text.bytelevel import hf_byte_rank
    from engine.text.display import hex_bytes, inert, invisible_name, mark_edges, token_display, visible_text
    from engine.text.pretokenize import (
        FILE_PATTERNS,
        NAMED_PATTERNS,
        PreTokenizer,
        compile_pattern,
        pretokenizer_for,
        pretokenizer_named,
    )

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.text.pretokenize": ("FILE_PATTERNS", "NAMED_PATTERNS", "PreTokenizer", "compile_pattern",
                                "pretokenizer_for", "pretokenizer_named"),
    "engine.text.bytelevel": ("hf_byte_rank",),
    "engine.text.display": ("hex_bytes", "inert", "invisible_name", "mark_edges", "token_display", "visible_text"),
})
