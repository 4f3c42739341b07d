"""bpe-lab's native tokenizer file (versioned JSON): a tokenizer's fields to the file's structure
and back, checked. :mod:`engine.encode.tokenizer` builds the :class:`~engine.encode.tokenizer.Tokenizer` from
:func:`fields` and reads and writes the files (this module imports no tokenizer, so that the
engine's modules import each other without cycles).

Format (``"format": "bpe-lab"``, ``"version": 1``)::

    {"format": "bpe-lab", "version": 1, "base": "bytes" | "chars",
     "alphabet": [...],                 # chars base only, in id order (id 0 = "\\ufffd")
     "merges": [[left, right], ...],    # merge k makes id base_size + k
     "specials": [{"token": "<eos>", "id": 270}, ...],   # ids follow the last merge
     "pretokenizer": {"name": ..., "pattern": ..., "split_digits": ..., "split_newlines": ...},
     "config": {...}}                   # the training options, when known

A SentencePiece BPE tokenizer is version 2 too, with ``"byte_fallback": true`` (its alphabet
then leaves out entries 1-256, the bytes) and ``"text_ranks"`` (see :class:`Tokenizer`); a
special that is one of the model's user-defined pieces, found in the normalized text, has
``"user_defined": true`` in its entry.

A tokenizer that looks chunks up whole first (a tiktoken rank file's) is version 2, with
``"whole_first": true`` and ``"whole_pieces": [hex, ...]`` (the bytes of tokens no merge makes,
whose ids follow the merges; the specials follow them), and so is one with a ``"normalizer"``
(HuggingFace's JSON of it, :mod:`engine.text.normalize`; ``"precompiled_rule": "sentencepiece"``
when its ``Precompiled`` table is applied as sentencepiece applies it, a ``.model``'s) or an
``"end_of_word"`` suffix (its base
then holds every base token twice: plain, then with the suffix, as CLIP's ``e`` and ``e</w>``)
or a ``"subword_prefix"`` (plain, then with the prefix: ``b`` and ``##b``; both: four times).
"""

from __future__ import annotations

from typing import Any

from engine.config import TrainConfig, end_of_word_problem, special_text_problem, subword_prefix_problem
from engine.encode.vocabulary import BYTE_CHARS
from engine.errors import TokenizerFileError
from engine.text.normalize import PRECOMPILED_RULES, Normalizer
from engine.text.pretokenize import PreTokenizer

FORMAT = "bpe-lab"
VERSION = 1
#: The version of a file with ``whole_first`` (and ``whole_pieces``) or a ``normalizer``, which
#: version 1 lacks.
WHOLE_VERSION = 2


def to_dict(tok: Any) -> dict[str, Any]:
    """The native JSON structure of a tokenizer (an :class:`engine.encode.tokenizer.Tokenizer`)."""
    later = (tok.whole_first or tok.normalizer is not None or tok.byte_fallback or tok.text_ranks is not None
             or tok.end_of_word is not None or tok.subword_prefix is not None)
    data: dict[str, Any] = {"format": FORMAT, "version": WHOLE_VERSION if later else VERSION, "base": tok.base}
    if tok.alphabet is not None:  # with byte fallback, less the 256 bytes (entries 1-256: BYTE_CHARS)
        data["alphabet"] = [tok.alphabet[0], *tok.alphabet[257:]] if tok.byte_fallback else tok.alphabet
    data["merges"] = [list(pair) for pair in tok.merges]
    if tok.whole_first:
        data["whole_first"] = True
        data["whole_pieces"] = [piece.hex() for piece in tok.whole_pieces]
        if tok.whole_ranks is not None:
            data["whole_ranks"] = tok.whole_ranks
    if tok.normalizer is not None:
        data["normalizer"] = tok.normalizer.spec
        if tok.normalizer.precompiled != "tokenizers":  # a .model's table: sentencepiece's rule
            data["precompiled_rule"] = tok.normalizer.precompiled
    if tok.byte_fallback:
        data["byte_fallback"] = True
    if tok.text_ranks is not None:
        data["text_ranks"] = tok.text_ranks
    if tok.end_of_word is not None:
        data["end_of_word"] = tok.end_of_word
    if tok.subword_prefix is not None:
        data["subword_prefix"] = tok.subword_prefix
    data["specials"] = [{"token": t, "id": i, **({"user_defined": True} if t in tok.user_defined else {})}
                        for t, i in tok.specials.items()]
    data["pretokenizer"] = tok.pretokenizer.to_dict()
    if tok.config is not None:
        data["config"] = tok.config.to_dict()
    return data


def _show(token: str) -> str:
    text = repr(token)
    return text if len(text) <= 40 else text[:37] + "..."


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise TokenizerFileError(message)


def fields(data: Any) -> dict[str, Any]:
    """A tokenizer's keyword arguments from the native structure; anything malformed raises
    ``ValueError`` (``TokenizerFileError``)."""
    _need(isinstance(data, dict), "not a bpe-lab tokenizer (expected a JSON object)")
    _need(data.get("format") == FORMAT, "not a bpe-lab tokenizer (no \"format\": \"bpe-lab\")")
    version = data.get("version")
    _need(version in (VERSION, WHOLE_VERSION) and type(version) is int, f"unsupported bpe-lab file version {version!r}")
    base = data.get("base")
    _need(base in ("bytes", "chars"), f"unknown base {base!r}")
    alphabet = data.get("alphabet")
    if base == "chars":
        _need(
            isinstance(alphabet, list) and bool(alphabet) and all(isinstance(c, str) and len(c) == 1 for c in alphabet),
            "the chars base needs \"alphabet\": a list of single characters",
        )
        fallback = version == WHOLE_VERSION and data.get("byte_fallback") is True
        rest = alphabet[1:] if fallback else alphabet  # entry 0, the unknown token, may be a piece too
        _need(len(set(rest)) == len(rest), "the alphabet repeats a character")
        if fallback:
            alphabet = [alphabet[0], *BYTE_CHARS, *alphabet[1:]]  # the file leaves the 256 bytes out
    merges = data.get("merges")
    _need(isinstance(merges, list), "\"merges\" must be a list of [left, right] pairs")
    for i, pair in enumerate(merges):
        _need(
            isinstance(pair, list) and len(pair) == 2 and all(type(x) is int for x in pair),
            f"merge {i + 1} is not a [left, right] pair of integers",
        )
    whole_first = data.get("whole_first", False) if version == WHOLE_VERSION else False
    _need(type(whole_first) is bool, "\"whole_first\" must be true or false")
    whole_hex = data.get("whole_pieces", []) if version == WHOLE_VERSION else []
    _need(isinstance(whole_hex, list) and all(isinstance(h, str) for h in whole_hex), "\"whole_pieces\" must be a list of hex strings")
    try:
        whole_pieces = [bytes.fromhex(h) for h in whole_hex]
    except ValueError:
        raise TokenizerFileError("\"whole_pieces\" must be a list of hex strings") from None
    whole_ranks = data.get("whole_ranks") if version == WHOLE_VERSION else None
    _need(whole_ranks is None or isinstance(whole_ranks, list), "\"whole_ranks\" must be a list of integers")
    _need(version != WHOLE_VERSION or isinstance(data.get("text_ranks", []), list), "\"text_ranks\" must be a list of integers")
    end_of_word = data.get("end_of_word") if version == WHOLE_VERSION else None
    problem = end_of_word_problem(end_of_word)
    _need(problem is None, problem or "")
    subword_prefix = data.get("subword_prefix") if version == WHOLE_VERSION else None
    problem = subword_prefix_problem(subword_prefix)
    _need(problem is None, problem or "")
    specials = data.get("specials", [])
    _need(isinstance(specials, list), "\"specials\" must be a list")
    tokens = []
    user_defined = []
    units = (len(alphabet) if base == "chars" else 256) * (1 if end_of_word is None else 2) * (1 if subword_prefix is None else 2)
    first_special = units + len(merges) + len(whole_pieces)
    for i, entry in enumerate(specials):
        _need(isinstance(entry, dict) and isinstance(entry.get("token"), str), f"special {i + 1} is malformed")
        _need(type(entry.get("id")) is int and entry["id"] == first_special + i,
              f"special {_show(entry['token'])} must have id {first_special + i}")
        problem = special_text_problem(entry["token"])
        _need(problem is None, problem or "")
        _need(type(entry.get("user_defined", False)) is bool, f"special {_show(entry['token'])}: \"user_defined\" must be "
                                                              "true or false")
        tokens.append(entry["token"])
        if entry.get("user_defined"):
            user_defined.append(entry["token"])
    pre = data.get("pretokenizer", {"name": "none"})
    _need(isinstance(pre, dict), "\"pretokenizer\" must be an object")
    config = data.get("config")
    try:
        pretokenizer = PreTokenizer.from_dict(pre)
        train_config = TrainConfig.from_dict(config) if isinstance(config, dict) else None
        spec = data.get("normalizer") if version == WHOLE_VERSION else None
        rule = data.get("precompiled_rule", "tokenizers")
        _need(rule in PRECOMPILED_RULES, f"\"precompiled_rule\" is one of {', '.join(PRECOMPILED_RULES)}")
        normalizer = Normalizer(spec, precompiled=rule) if spec is not None else None
    except TypeError as exc:
        raise TokenizerFileError(f"malformed tokenizer settings: {exc}") from None
    return dict(
        merges=merges, base=base, alphabet=alphabet, specials=tokens, pretokenizer=pretokenizer, config=train_config,
        whole_first=whole_first, whole_pieces=whole_pieces, whole_ranks=whole_ranks, normalizer=normalizer,
        byte_fallback=version == WHOLE_VERSION and data.get("byte_fallback") is True,
        text_ranks=data.get("text_ranks") if version == WHOLE_VERSION else None,
        end_of_word=end_of_word, subword_prefix=subword_prefix, user_defined=user_defined,
    )
