"""Mistral's ``tekken.json`` (mistral-common's own format): tiktoken ranks with a config::

    {"config": {"pattern": "...", "default_vocab_size": 131072, "default_num_special_tokens": 1000, ...},
     "vocab": [{"rank": 0, "token_bytes": "AA==", "token_str": "\\u0000"}, ...],
     "special_tokens": [...]}            # newer files; older ones use mistral-common's defaults

mistral-common's ``Tekkenizer`` keeps the first ``default_vocab_size - default_num_special_tokens``
ranks for a ``tiktoken.Encoding`` with the pattern and no special tokens, and offsets every id
by the number of special tokens (ids below it are the specials, which encoding never finds in
text). bpe-lab reads the ranks as a rank file (:mod:`engine.formats.tiktoken_bpe`) and keeps
that offset as the file's ids. Read only: bpe-lab writes no tekken.json.
"""

from __future__ import annotations

import binascii
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.encode.tokenizer import Tokenizer
from engine.errors import ExportError
from engine.formats import merge_cache
from engine.formats import sniff as sniffed
from engine.formats.common import Imported, fail, is_id, read_json
from engine.formats.tiktoken_bpe import check_rank_bytes, pattern_pretokenizer, ranked_tokenizer
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe


def _config(data: Any) -> dict[str, Any] | None:
    if isinstance(data, dict) and isinstance(data.get("config"), dict) and isinstance(data.get("vocab"), list):
        config = data["config"]
        if "pattern" in config and "default_num_special_tokens" in config:
            return config
    return None


def load_tekken(path: str | Path, data: Any = None, pretokenizer: PreTokenizer | None = None) -> Imported:
    """Read a ``tekken.json``; its ids are mistral-common's (ranks offset by the specials)."""
    path = Path(path)
    if data is None:
        data = read_json(path)
    config = _config(data)
    if config is None:
        raise fail(path, "not a tekken.json (expected \"config\" with \"pattern\" and \"default_num_special_tokens\", "
                         "and a \"vocab\" list)")
    specials, size, pattern = config.get("default_num_special_tokens"), config.get("default_vocab_size"), config["pattern"]
    vocab = data["vocab"]
    if not (is_id(specials) and (size is None or is_id(size))):
        raise fail(path, "\"default_num_special_tokens\" and \"default_vocab_size\" must be non-negative integers")
    inner = len(vocab) if size is None else size - specials
    if not 0 < inner <= len(vocab):
        raise fail(path, f"\"default_vocab_size\" {size} leaves {inner} of the {len(vocab)} vocabulary entries "
                         f"after {specials} special tokens")
    if not isinstance(pattern, str):
        raise fail(path, "\"config.pattern\" must be a regex string")
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:inner]):
        if not (isinstance(entry, dict) and entry.get("rank") == i and isinstance(entry.get("token_bytes"), str)):
            raise fail(path, f"vocab entry {i} is not {{\"rank\": {i}, \"token_bytes\": base64}}")
        try:
            token = binascii.a2b_base64(entry["token_bytes"], strict_mode=True)
        except binascii.Error:
            raise fail(path, f"vocab entry {i} has token_bytes that are not base64") from None
        if not token or token in ranks:
            raise fail(path, f"vocab entry {i} is {'empty' if not token else 'a repeat of rank ' + str(ranks[token])}")
        ranks[token] = i
    check_rank_bytes(path, ranks)
    if pretokenizer is None:
        try:
            pretokenizer = pattern_pretokenizer(pattern)
        except ValueError as exc:
            raise fail(path, str(exc)) from None
    warnings = [f"its {specials} special tokens (ids 0-{specials - 1}) are not read: mistral-common never finds them "
                f"in text; the other ids are mistral-common's (the ranks + {specials})"] if specials else []
    key = merge_cache.key_of(f"tekken {len(vocab)} {inner}\n" + "\n".join(e["token_bytes"] for e in vocab[:inner]))
    tok, file_ids, warnings = ranked_tokenizer(path, ranks, key, [], pretokenizer, warnings)
    return Imported(tok, "tekken", str(path), [None if i is None else i + specials for i in file_ids], warnings)


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    return sniffed.TEKKEN if probe.kind == "json" and _config(probe.data) is not None else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    return load_tekken(path, content, pretokenizer)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    raise ExportError("bpe-lab reads tekken.json but does not write it (use tiktoken: the same ranks)")


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
