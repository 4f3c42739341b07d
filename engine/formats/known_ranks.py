"""Well-known tiktoken rank files, told apart by their content: they hold no pattern, so a bare
rank file of GPT-2, cl100k, o200k, Llama 3 and 4 or Qwen takes its library's own pattern (and what
else its library adds: Qwen's NFC and specials), with a note saying so."""

from __future__ import annotations

from itertools import islice
from typing import Any

#: The first merged tokens (ranks 256-261) of two families of rank files: GPT-2's byte-level
#: merges (r50k, p50k), and cl100k's, which Llama 3 extends.
_GPT2_FIRST = (b" t", b" a", b"he", b"in", b"re", b"on")
_CL100K_FIRST = (b"  ", b"    ", b"in", b" t", b"        ", b"er")
#: Well-known rank files told apart by their content, as they hold no pattern: how many ranks,
#: the first six merged tokens, the file's name for a message, and the --pattern-name of the
#: pattern its tokenizer splits text with. Checked against the files themselves: GPT-2's and
#: Whisper's (openai-whisper), Llama 3's and Llama 4's (llama-models); cl100k's is the first
#: 100,256 ranks of Llama 3's, p50k's is GPT-2's and 24 runs of spaces; o200k's (GPT-4o's) checked
#: against npm's tiktoken encoders/o200k_base.json, Qwen's against dashscope's qwen.tiktoken.
KNOWN_RANK_FILES: tuple[tuple[int, tuple[bytes, ...], str, str], ...] = (
    (50256, _GPT2_FIRST, "GPT-2 (r50k_base)", "gpt2"),
    (50280, _GPT2_FIRST, "p50k_base", "gpt2"),
    (50256, (b" t", b" a", b" th", b"in", b"er", b" w"), "Whisper's multilingual", "gpt2"),  # and "" at 50256
    (100256, _CL100K_FIRST, "cl100k_base (GPT-4)", "gpt4"),
    (128000, _CL100K_FIRST, "Llama 3", "llama3"),
    (200000, (b"  ", b"    ", b"er", b"in", b" t", b"on"), "Llama 4", "o200k"),
    (199998, (b"  ", b"    ", b"in", b"er", b" t", b" a"), "o200k_base (GPT-4o)", "o200k"),
    (151643, _CL100K_FIRST, "Qwen", "qwen"),
)
#: What a well-known rank file's library adds that the file cannot say: a normalizer (HF JSON)
#: and special tokens. Qwen's (dashscope's QwenTokenizer, Qwen's own tokenization_qwen.py)
#: applies NFC, and numbers its specials from 151,643.
KNOWN_EXTRAS: dict[str, tuple[dict[str, Any] | None, list[tuple[str, int]]]] = {
    "Qwen": ({"type": "NFC"}, [(t, 151643 + k) for k, t in enumerate(
        ("<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(205))))]),
}


def known_rank_file(ranks: dict[bytes, int]) -> tuple[str, str] | None:
    """``(name, pattern name)`` of a well-known rank file (:data:`KNOWN_RANK_FILES`), else None.

    Example: GPT-2's 50,256 ranks -> ``("GPT-2 (r50k_base)", "gpt2")``
    """
    if not ranks:
        return None
    span = max(ranks.values()) + 1  # as read: Whisper's empty last token is skipped, so its file spans 50,256
    if list(islice(ranks.values(), 256, 262)) == list(range(256, 262)):  # a file in rank order (ranks never repeat)
        first = tuple(zip(range(256, 262), islice(ranks, 256, 262)))
    else:
        first = tuple(sorted((r, t) for t, r in ranks.items() if 256 <= r < 262))
    for count, tokens, name, pattern in KNOWN_RANK_FILES:
        if span == count and tuple(t for _, t in first) == tokens and [r for r, _ in first] == list(range(256, 262)):
            return name, pattern
    return None
