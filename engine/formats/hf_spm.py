"""HuggingFace ``tokenizer.json`` files of SentencePiece-style BPE models: ``byte_fallback``, the
``▁`` for spaces (a ``Metaspace`` pre-tokenizer, or the ``Prepend``/``Replace`` normalizers of
older conversions), what transformers' converter makes of Llama 2's and Mistral's ``.model``.

The model becomes a chars-base tokenizer (:mod:`engine.formats.sentencepiece` lays it out the
same way): the unknown token as id 0, the 256 byte tokens ``<0x00>``-``<0xFF>``, the tokens of
one character, then one merge a product. A converted file lists every split of a piece into two
tokens as a merge, several for one token: bpe-lab then merges by the rank of the joined text
(``Tokenizer.text_ranks``, a token's rank its first merge's), which gives tokenizers' ids. A file
whose merges each make a token of their own is merged by its rules as they are.

``Metaspace`` turns into normalizer steps (spaces to ``▁``, a ``▁`` before text that does not
start with one) and, with ``split``, a pattern that cuts before each ``▁``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.encode.tokenizer import Tokenizer
from engine.encode.vocabulary import BYTE_CHARS
from engine.formats.common import Imported, check_special, check_unique_ids, fail, show
from engine.formats.sentencepiece import SPACE, SentencePieceImport, _byte_of
from engine.text.normalize import Normalizer
from engine.text.pretokenize import PreTokenizer


def _metaspace(node: Any, path: Path, warnings: list[str]) -> tuple[list[dict[str, Any]], PreTokenizer, bool]:
    """(normalizer steps, pre-tokenizer, whether a leading ▁ is the prefix) for the file's
    ``pre_tokenizer`` (none, or ``Metaspace``)."""
    if node is None:
        return [], PreTokenizer("none"), True
    if not isinstance(node, dict) or node.get("type") != "Metaspace":
        kind = node.get("type") if isinstance(node, dict) else None
        raise fail(path, f"a byte_fallback model with the {kind or 'malformed'} pre-tokenizer is not supported "
                         "(bpe-lab reads Metaspace or none there)")
    replacement = node.get("replacement", SPACE)
    if not isinstance(replacement, str) or len(replacement) != 1:
        raise fail(path, "the Metaspace pre-tokenizer's replacement must be one character")
    scheme = node.get("prepend_scheme")
    if scheme is None:
        scheme = "always" if node.get("add_prefix_space", True) else "never"
    if scheme not in ("always", "first", "never"):
        raise fail(path, f"the Metaspace prepend_scheme {scheme!r} is not one of always, first, never")
    steps: list[dict[str, Any]] = [{"type": "Replace", "pattern": {"String": " "}, "content": replacement}]
    if scheme != "never":
        steps.append({"type": "Replace", "pattern": {"Regex": f"\\A(?=[^{replacement}])"}, "content": replacement})
    if scheme == "first":
        warnings.append("Metaspace's prepend_scheme 'first': bpe-lab puts the ▁ before the text after a special token too")
    pre = PreTokenizer("none")
    if node.get("split", True):
        pre = PreTokenizer("custom", f"{replacement}[^{replacement}]*|[^{replacement}]+")
    return steps, pre, scheme != "never"


def load_byte_fallback(path: Path, data: dict[str, Any], model: dict[str, Any], specials: list[tuple[str, int]],
                       merges_in: list[tuple[str, str]]) -> Imported:
    """The tokenizer of a BPE ``tokenizer.json`` with ``byte_fallback``; ``specials`` are its
    added tokens (text, id), ``merges_in`` its merges (left, right)."""
    warnings: list[str] = []
    vocab = model.get("vocab")
    if not isinstance(vocab, dict) or not vocab:
        raise fail(path, "\"model.vocab\" must be an object mapping tokens to ids")
    check_unique_ids(path, vocab.items())
    steps, pre, prefix = _metaspace(data.get("pre_tokenizer"), path, warnings)
    spec = data.get("normalizer")
    if steps:
        spec = {"type": "Sequence", "normalizers": ([spec] if spec is not None else []) + steps}
    try:
        normalizer = Normalizer(spec) if spec is not None else None
    except ValueError as exc:
        raise fail(path, f"the file's normalizer is not supported ({exc})") from None
    special_texts = {t for t, _ in specials}
    bytes_at: dict[int, int] = {}
    for name, i in vocab.items():
        byte = _byte_of(name)
        if byte is not None:
            bytes_at[byte] = i
    if len(bytes_at) != 256:
        raise fail(path, f"byte_fallback needs the 256 byte tokens <0x00>-<0xFF>; this vocabulary has {len(bytes_at)}")
    unk = model.get("unk_token")
    unk_id = vocab.get(unk) if isinstance(unk, str) else None
    if unk_id is None:
        warnings.append("the file has no unk_token in its vocabulary: a character no byte spells has no id in the file")
    chars = sorted((n for n in vocab if len(n) == 1 and n not in special_texts), key=vocab.__getitem__)
    alphabet = ["\ufffd", *BYTE_CHARS, *chars]
    file_ids: list[int | None] = [unk_id] + [bytes_at[b] for b in range(256)] + [vocab[c] for c in chars]
    made: dict[str, int] = {c: 257 + k for k, c in enumerate(chars)}
    products: dict[str, list[tuple[str, str]]] = {}
    for left, right in merges_in:
        products.setdefault(left + right, []).append((left, right))
    several = any(len(pairs) > 1 for pairs in products.values())
    order = list(enumerate(products.items()))
    # A file whose merges use tokens later merges make (Gemma's lists runs of newlines first):
    # a token's parts are shorter than it, so taken shortest first every merge's parts are made
    # before it; each is still merged by the rank of the joined text, its place in the file
    seen = set(made)
    reordered = False
    for text, pairs in products.items():
        if not any(a in seen and b in seen for a, b in pairs):
            order.sort(key=lambda item: len(item[1][0]))
            reordered = True
            break
        seen.add(text)
    merges: list[tuple[int, int]] = []
    ranks: list[int] = []
    for rank, (text, pairs) in order:
        theirs = vocab.get(text)
        if theirs is None:
            raise fail(path, f"merge {show(pairs[0][0])} + {show(pairs[0][1])} makes {show(text)}, which is not in the vocabulary")
        split = next(((a, b) for a, b in pairs if a in made and b in made), None)
        if split is None:
            a, b = pairs[0]
            raise fail(path, f"merge {show(a)} + {show(b)} uses a token neither a base token nor made by an earlier merge")
        made.setdefault(text, 257 + len(chars) + len(merges))
        merges.append((made[split[0]], made[split[1]]))
        ranks.append(rank)
        file_ids.append(theirs)
    if unk_id is not None and isinstance(unk, str) and unk not in special_texts and unk in vocab:
        pass  # the unknown token is id 0
    left_out = sum(1 for n in vocab if n not in made and n not in special_texts and _byte_of(n) is None and n != unk)
    if left_out:
        warnings.append(f"{left_out} vocabulary token(s) are neither a base token nor made by a merge; never produced, dropped")
    for text, _ in specials:
        check_special(path, text)
    file_ids.extend(i for _, i in specials)
    try:
        tok = Tokenizer.from_sentencepiece(merges, alphabet=alphabet, specials=[t for t, _ in specials],
                                           pretokenizer=pre, normalizer=normalizer, byte_fallback=True,
                                           text_ranks=ranks if several or reordered else None)
    except ValueError as exc:
        raise fail(path, str(exc)) from None
    if model.get("dropout"):
        warnings.append("the file's BPE dropout is ignored (bpe-lab always merges)")
    surface = "" if unk in special_texts else (unk if isinstance(unk, str) else "")
    return SentencePieceImport(tok, "hf", str(path), file_ids, warnings, unk_surface=surface, dummy_prefix=prefix,
                               controls=frozenset(tok.specials.values()))


def spm_tokenizer_json(tok: Tokenizer, out: list[int]) -> dict[str, Any]:
    """The ``tokenizer.json`` of a byte-fallback tokenizer as transformers' converter writes one:
    ``<0xXX>`` byte tokens, ``byte_fallback``, and (for merging by text) every split of a token
    into two tokens as a merge, in rank order, so that tokenizers merges as bpe-lab does; ``out``
    is the id each of our tokens gets."""
    from engine.formats.hfpre import pretokenizer_json

    assert tok.alphabet is not None
    names = ["<unk>", *(f"<0x{b:02X}>" for b in range(256)), *tok.alphabet[257:]]
    names += [piece.decode("utf-8", "surrogateescape") for piece in tok.pieces[len(names):]]
    vocab: dict[str, int] = {}
    for i, name in enumerate(names):
        vocab.setdefault(name, out[i])
    merges: list[list[str]] = []
    first = tok.base_size
    if tok.text_ranks is None:
        merges = [[names[a], names[b]] for a, b in tok.merges]
    else:
        mergeable = {name for name in names[257:]}
        seen: set[str] = set()
        for k in sorted(range(len(tok.merges)), key=lambda k: (tok.text_ranks[k], k)):  # type: ignore[index]
            text = names[first + k]
            if text in seen:
                continue
            seen.add(text)
            splits = [(text[:j], text[j:]) for j in range(1, len(text)) if text[:j] in mergeable and text[j:] in mergeable]
            merges += [[a, b] for a, b in sorted(splits, key=lambda s: (vocab[s[0]], vocab[s[1]]))]
    for text, i in tok.specials.items():  # in the vocabulary too: tokenizers gives one it lacks an id of its own
        vocab.setdefault(text, out[i])
    added = [{"id": out[i], "content": text, "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for text, i in tok.specials.items()]
    decoder = {"type": "Sequence", "decoders": [
        {"type": "Replace", "pattern": {"String": SPACE}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"},
        {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": tok.normalizer.spec if tok.normalizer is not None else None,
        "pre_tokenizer": pretokenizer_json(tok.pretokenizer, byte_level=False), "post_processor": None,
        "decoder": decoder,
        "model": {"type": "BPE", "dropout": None, "unk_token": "<unk>", "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": True, "byte_fallback": True, "ignore_merges": False,
                  "vocab": vocab, "merges": merges},
    }
