"""HuggingFace ``tokenizer.json`` (a BPE model) for ``tokenizers.Tokenizer.from_file``.

Written with our ids: for the bytes base, ids 0-255 are the bytes (each spelled as its GPT-2
byte-level character), merge k makes id 256 + k, specials follow as added tokens
(``special: true``); ``tokenizers`` encodes to exactly the ids bpe-lab gives. The chars base
writes its alphabet as the vocabulary (id 0, ``"\\ufffd"``, is the ``unk_token``) with a
``Fuse`` decoder. A file made by ``tokenizers`` itself numbers tokens its own way (specials
first, then the alphabet, then merges); importing it keeps that numbering as ``file_ids``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain, repeat
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.config import end_of_word_problem, subword_prefix_problem
from engine.encode.models import WholeFirst
from engine.encode.tokenizer import Tokenizer
from engine.encode.vocabulary import BaseUnits, Vocabulary
from engine.errors import TokenizerFileError
from engine.formats import sniff as sniffed
from engine.formats.common import (
    Imported,
    build,
    built,
    check_unique_ids,
    fail,
    fold_note,
    identity,
    is_id,
    output_ids,
    quick_merges,
    read_json,
    show,
    write_json,
)
from engine.formats.hfpre import pretokenizer_json, read_pretokenizer
from engine.text.bytelevel import byte_level_names, not_byte_level, token_to_unicode, unicode_to_token, unicode_to_tokens
from engine.text.normalize import Normalizer
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe


def tokenizer_json(tok: Tokenizer, ids: Sequence[int | None] | None = None) -> dict[str, Any]:
    """The ``tokenizer.json`` structure for ``tok`` (ids from ``ids`` when complete, else ours)."""
    out = output_ids(tok, ids)
    if tok.byte_fallback:  # SentencePiece-style: <0xXX> byte tokens and byte_fallback
        from engine.formats.hf_spm import spm_tokenizer_json

        return spm_tokenizer_json(tok, out)
    byte_level = tok.base == "bytes"
    unk: str | None = None  # byte-level: the unk_token (a prefix tokenizer's twins a file lacked)
    spell = token_to_unicode if byte_level else (lambda piece: piece.decode("utf-8", "surrogateescape"))
    names = [spell(piece) for piece in tok.pieces]
    vocab: dict[str, int] = {}
    if tok.subword_prefix is None:
        for i, name in enumerate(names):
            vocab.setdefault(name, out[i])
    else:  # a prefixed twin the file lacked has its unk_token's id: tokenizers finds it by leaving it out
        unknown = {out[i]: text for text, i in tok.specials.items()}
        if not byte_level:
            unknown[out[0]] = names[0]
        plain = tok.base_size // (2 if tok.end_of_word is None else 4)
        lacked = {i for i in range(plain, tok.base_size) if out[i] in unknown}
        for i, name in enumerate(names):
            if i not in lacked:
                vocab.setdefault(name, out[i])
        if lacked and byte_level:
            unk = unknown[out[min(lacked)]]
    for k, piece in enumerate(tok.whole_pieces):  # made by no merge: only ignore_merges' lookup gives them
        vocab.setdefault(spell(piece), out[len(tok.pieces) + k])
    # a special whose id is among the model's (a file's own numbering, BpeTrainer's specials first) goes
    # in the model's vocabulary too, as BpeTrainer writes it: tokenizers gives an added token the model's
    # id, else numbers it after the vocabulary (one whose id a token has, an unk_token, is that one)
    taken = set(vocab.values())
    last = max(taken, default=-1)
    for text, i in tok.specials.items():
        if out[i] not in taken and out[i] < last:
            vocab.setdefault(text, out[i])
    merges: list[Any] = []
    for a, b in dict.fromkeys((names[a], names[b]) for a, b in tok.merges):  # folded repeats once
        merges.append(f"{a} {b}" if byte_level else [a, b])
    added = [
        {"id": out[i], "content": text, "single_word": False, "lstrip": False, "rstrip": False,
         "normalized": False, "special": True}
        for text, i in tok.specials.items()
    ]
    if byte_level:
        decoder: dict[str, Any] = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    else:
        decoder = {"type": "Fuse"}
    if tok.end_of_word is not None:
        decoder = _suffix_decoder(tok.end_of_word, decoder, keeps=tok.pretokenizer.name != "custom")
    if tok.subword_prefix is not None:
        decoder = _prefix_decoder(tok, decoder)
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        "normalizer": tok.normalizer.spec if tok.normalizer is not None else None,
        "pre_tokenizer": pretokenizer_json(tok.pretokenizer, byte_level=byte_level),
        "post_processor": None,
        "decoder": decoder,
        "model": {
            "type": "BPE", "dropout": None, "unk_token": unk if byte_level else names[0],  # the chars base's id 0
            "continuing_subword_prefix": tok.subword_prefix, "end_of_word_suffix": tok.end_of_word, "fuse_unk": False,
            "byte_fallback": False, "ignore_merges": tok.whole_first, "vocab": vocab, "merges": merges,
        },
    }


def _suffix_decoder(suffix: str, decoder: dict[str, Any], keeps: bool) -> dict[str, Any]:
    """The decoder of a tokenizer whose words end with ``suffix``, decoding as bpe-lab does: the
    suffix dropped where the pre-tokenizer ``keeps`` every character, else a space between words
    (the chars base: HuggingFace's BPEDecoder; byte-level: a space after every word, the last too)."""
    if not keeps and decoder["type"] == "Fuse":
        return {"type": "BPEDecoder", "suffix": suffix}
    space = "" if keeps else "\u0120"  # byte-level's space
    replace = {"type": "Replace", "pattern": {"String": suffix}, "content": space}
    return {"type": "Sequence", "decoders": [replace, decoder]}


def _prefix_decoder(tok: Tokenizer, decoder: dict[str, Any]) -> dict[str, Any]:
    """The decoder of a tokenizer whose words continue after a subword prefix, decoding as
    bpe-lab does: HuggingFace's WordPiece decoder (a space before each token that starts a word)
    where the chars base's pre-tokenizer drops characters, else the prefix dropped."""
    prefix = tok.subword_prefix
    if tok.end_of_word is None and tok.pretokenizer.name == "custom" and decoder["type"] == "Fuse":
        return {"type": "WordPiece", "prefix": prefix, "cleanup": False}
    drop = {"type": "Replace", "pattern": {"String": prefix}, "content": ""}
    return {"type": "Sequence", "decoders": [drop, decoder]}


def rank_merge_note(tok: Tokenizer, where: str) -> list[str]:
    """A warning when ``tok`` merges by rank as tiktoken does (``whole_ranks``), which pair
    merges (``where``: the format's readers) cannot."""
    if tok.whole_ranks is None:
        return []
    return [f"{where} merge by pair: tiktoken's merging by rank, which this tokenizer does, builds some whole-piece "
            "tokens inside longer pieces too (Llama 3's ' nghiệ' in ' nghiệx'), so such rare texts encode differently "
            "(tiktoken and native keep it)"]


def save_hf(tok: Tokenizer, path: str | Path, ids: Sequence[int | None] | None = None) -> list[str]:
    """Write ``tokenizer.json`` atomically; returns warnings."""
    write_json(path, tokenizer_json(tok, ids))
    return fold_note(tok) + rank_merge_note(tok, "tokenizers' BPE models") + user_defined_note(tok)


def user_defined_note(tok: Tokenizer) -> list[str]:
    """A note when a SentencePiece model's user-defined pieces are written as added tokens: bpe-lab
    and sentencepiece find them in the normalized text, tokenizers in the text before its
    normalizer, which then prepends its ``▁`` to the text after one too."""
    if not tok.user_defined:
        return []
    first = next(t for t in tok.specials if t in tok.user_defined)
    return [f"{len(tok.user_defined)} user-defined piece(s) ({first}, ...) are written as added tokens, which tokenizers "
            "finds before it normalizes the text: text beside one may encode otherwise than in sentencepiece"]


def _merge_list(model: dict[str, Any], path: Path) -> list[tuple[str, str]]:
    merges = model.get("merges", [])
    if not isinstance(merges, list):
        raise fail(path, "\"model.merges\" must be a list")
    try:  # the usual file: every merge a [left, right] list, or every one a "left right" string
        if set(map(type, merges)) <= {list}:
            quick = [(left, right) for left, right in merges]
        else:
            quick = [(left, right) for left, right in map(str.split, merges, repeat(" "))]
        parts = list(chain.from_iterable(quick))
        if set(map(type, parts)) <= {str} and all(parts):
            return quick
    except (ValueError, TypeError):
        pass  # the loop below names the merge that is wrong
    out = []
    for k, entry in enumerate(merges):
        if isinstance(entry, str):
            parts = entry.split(" ")
            if len(parts) != 2 or not all(parts):
                raise fail(path, f"merge {k + 1} {show(entry)} is not two tokens separated by one space")
        elif isinstance(entry, list) and len(entry) == 2 and all(isinstance(p, str) and p for p in entry):
            parts = entry
        else:
            raise fail(path, f"merge {k + 1} is not a pair of tokens")
        out.append((parts[0], parts[1]))
    return out


def _model(data: Any, path: Path) -> dict[str, Any]:
    if not isinstance(data, dict) or not isinstance(data.get("model"), dict):
        raise fail(path, "not a HuggingFace tokenizer.json (no \"model\" object)")
    model = data["model"]
    kind = model.get("type")
    if kind is None and "merges" in model:
        kind = "BPE"  # older files leave the type out
    if kind in ("WordPiece", "Unigram", "WordLevel"):
        raise fail(path, f"a {kind} model is not supported (bpe-lab trains and replays BPE models only; "
                         f"bpe-lab compare CORPUS trains {'Unigram and WordPiece' if kind != 'WordLevel' else 'them'} beside BPE)")
    if kind != "BPE":
        raise fail(path, f"a {kind or 'untyped'} model is not supported (bpe-lab reads BPE models only)")
    suffix, prefix = model.get("end_of_word_suffix"), model.get("continuing_subword_prefix")
    if prefix:  # (an empty prefix is none: tokenizers adds nothing)
        problem = subword_prefix_problem(prefix)
        if problem:
            raise fail(path, f"continuing_subword_prefix: {problem}")
        if model.get("byte_fallback"):
            raise fail(path, "BPE with byte_fallback and a continuing-subword prefix is not supported (bpe-lab reads "
                             "each of them alone)")
    if suffix:  # (an empty suffix is none too: tokenizers appends nothing; Qwen 2.5's file says "")
        problem = end_of_word_problem(suffix)
        if problem:
            raise fail(path, problem)
    return model


def load_hf(path: str | Path, data: Any = None) -> Imported:
    """Read a HuggingFace ``tokenizer.json`` with a BPE model; malformed files raise ValueError.

    ``data`` is the file's JSON when it was read already."""
    path = Path(path)
    if data is None:
        data = read_json(path)
    model = _model(data, path)
    warnings: list[str] = []
    vocab_raw = model.get("vocab")
    if not isinstance(vocab_raw, dict):
        raise fail(path, "\"model.vocab\" must be an object mapping tokens to ids")
    if not vocab_raw:
        raise fail(path, "\"model.vocab\" is empty (a BPE model lists its base tokens there)")
    check_unique_ids(path, vocab_raw.items())
    added = data.get("added_tokens", [])
    if not isinstance(added, list) or not all(
        isinstance(t, dict) and isinstance(t.get("content"), str) and t["content"] and is_id(t.get("id")) for t in added
    ):
        raise fail(path, "\"added_tokens\" must be a list of {\"id\", \"content\"} objects")
    specials = sorted(((t["content"], t["id"]) for t in added), key=lambda s: s[1])
    check_unique_ids(path, [(c, i) for c, i in specials], "added token")
    post = data.get("post_processor")
    if isinstance(post, dict) and post.get("type") not in (None, "ByteLevel"):
        warnings.append(f"the file's {post.get('type')} post-processor is ignored (bpe-lab adds no tokens)")
    if model.get("byte_fallback"):  # a SentencePiece-style model (Llama 2's, Mistral's)
        from engine.formats.hf_spm import load_byte_fallback

        imported = load_byte_fallback(path, data, model, specials, _merge_list(model, path))
        imported.warnings[:0] = warnings
        return imported
    pre, byte_level, notes = read_pretokenizer(data.get("pre_tokenizer"), path)
    warnings += notes
    normalizer = _normalizer(data.get("normalizer"), path, warnings)
    if model.get("dropout"):
        warnings.append("the file's BPE dropout is ignored (bpe-lab always merges)")
    special_texts = {c for c, _ in specials}
    suffix = model.get("end_of_word_suffix") or None
    prefix = model.get("continuing_subword_prefix") or None
    if prefix is not None and byte_level and unicode_to_token_or_none(prefix) != prefix.encode("utf-8"):
        raise fail(path, f"the continuing-subword prefix {show(prefix)} is not spelled the same in byte-level text "
                         "(bpe-lab reads byte-level models whose prefix is printable ASCII, as ##)")
    plain = suffix is None and prefix is None
    parts = _merge_parts(model)  # (once: Llama 3's 280,147 merges take a while to split)
    quick = _byte_level_quickly(path, parts, vocab_raw, specials, pre) if byte_level and plain else None
    # a file whose merges follow its ids, some using tokens later merges make (Llama 3's): as
    # ranks (tiktoken's rule looks a chunk up whole first, as ignore_merges does: only then the same)
    found = (_as_ranks(path, parts, vocab_raw, specials, pre)
             if quick is None and model.get("ignore_merges") and byte_level and plain and _merges_late(parts) else None)
    ranked = found is not None
    if quick is not None:
        tok, file_ids, more = quick
    elif found is not None:
        tok, file_ids, more = found
    else:
        tok, file_ids, more = _load_model(path, model, vocab_raw, byte_level, specials, special_texts, pre, suffix, prefix)
    warnings += more
    if ranked:
        pass  # looked up whole first already, as a rank file is
    elif model.get("ignore_merges") and not plain:
        warnings.append("ignore_merges is ignored: bpe-lab looks chunks up whole only for models without a suffix or prefix")
    elif model.get("ignore_merges"):
        if byte_level:
            tok, file_ids = _whole_first(tok, file_ids, vocab_raw, special_texts)
        else:
            warnings.append("ignore_merges is ignored: bpe-lab looks chunks up whole only for byte-level models")
    tok.normalizer = normalizer  # nothing is encoded yet: the chunk cache is empty
    dropped = len(set(vocab_raw.values()).difference(file_ids))
    if dropped:
        warnings.append(f"{dropped} vocabulary token(s) are neither a base token nor made by a merge; never produced, dropped")
    return Imported(tok, "hf", str(path), None if identity(file_ids) else file_ids, warnings)


def _merges_late(parts: tuple[list[str], list[str]] | None) -> bool:
    """Whether some merge (``parts``: :func:`_merge_parts`) uses a token only a later merge makes."""
    if parts is None:
        return False
    later: dict[str, int] = {}
    for k, (left, right) in enumerate(zip(*parts)):
        later.setdefault(left + right, k)
    return any(later.get(part, -1) > k for k, (left, right) in enumerate(zip(*parts)) for part in (left, right))


def _as_ranks(path: Path, parts: tuple[list[str], list[str]] | None, vocab_raw: dict[str, int],
              specials: list[tuple[str, int]], pre: PreTokenizer) -> tuple[Tokenizer, list[int | None], list[str]] | None:
    """A byte-level model whose merges follow its token ids, read as tiktoken ranks (a token's
    id is its rank) and merged by tiktoken's rule; None when its merges do not follow its ids.

    They follow them when each merge makes a token numbered no lower than the one before it, and
    every token of more than one byte (not special) is made by some merge. Merging by the rank
    of each pair is then merging by the id of the token it makes: what a converter from tiktoken's
    ranks writes. Llama 3's files list every pair that joins to each token (280,147 merges for
    128,000 tokens), some using tokens only later merges make, which merge rules cannot hold."""
    import hashlib

    from engine.formats.tiktoken_bpe import ranked_tokenizer

    if parts is None:
        return None
    last, made = -1, set()
    for left, right in zip(*parts):
        product = vocab_raw.get(left + right)
        if product is None or product < last:
            return None
        last = product
        made.add(product)
    special_texts = {t for t, _ in specials}
    names = [name for name in vocab_raw if name not in special_texts]
    try:
        keys: list[bytes | None] = list(unicode_to_tokens(names))
    except ValueError:  # some text no byte-level chunk is: left out
        keys = list(map(unicode_to_token_or_none, names))
    ranks: dict[bytes, int] = {}
    for name, key in zip(names, keys):
        if key is None:
            continue
        i = vocab_raw[name]
        if len(key) > 1 and i not in made:
            return None
        ranks[key] = i
    digest = hashlib.sha256()
    for name, i in sorted(vocab_raw.items(), key=itemgetter(1)):
        digest.update(f"{i} {name}".encode("utf-8", "surrogateescape") + b"\0")
    warnings = ["its merges follow its token ids (as a tiktoken rank file's): read as ranks, merged as tiktoken merges"]
    return ranked_tokenizer(path, ranks, "hf-" + digest.hexdigest(), sorted(specials, key=itemgetter(1)), pre, warnings)


def unicode_to_token_or_none(text: str) -> bytes | None:
    """The bytes of byte-level ``text``, or None when it is not byte-level text."""
    try:
        return unicode_to_token(text)
    except ValueError:
        return None


def _normalizer(spec: Any, path: Path, warnings: list[str]) -> Normalizer | None:
    """The file's normalizer; one bpe-lab does not apply is ignored with a warning naming it."""
    if spec is None:
        return None
    try:
        return Normalizer(spec)
    except ValueError as exc:
        warnings.append(f"the file's normalizer is ignored ({exc}): text that it would change encodes differently")
        return None


def _whole_first(
    tok: Tokenizer, file_ids: list[int | None], vocab_raw: dict[str, int], special_texts: set[str],
) -> tuple[Tokenizer, list[int | None]]:
    """``tok`` looking chunks up whole first (``ignore_merges``), with the vocabulary's tokens
    that no merge makes as its whole pieces (ids after the merges, their file ids kept)."""
    made = set(file_ids)
    left = sorted(((name, i) for name, i in vocab_raw.items() if i not in made and name not in special_texts),
                  key=itemgetter(1))
    pieces = []
    for name, i in left:
        try:
            pieces.append((unicode_to_token(name), i))
        except ValueError:
            continue  # not byte-level text: no chunk is ever it
    pieces = [(piece, i) for piece, i in pieces if len(piece) > 1]
    merged = len(tok.pieces)
    vocab = Vocabulary.from_parts(BaseUnits(), [a for a, _ in tok.merges], [b for _, b in tok.merges], tokens=tok.pieces,
                                  whole_pieces=[piece for piece, _ in pieces], specials=list(tok.specials))
    whole = Tokenizer.compose(WholeFirst(vocab), pretokenizer=tok.pretokenizer)
    return whole, file_ids[:merged] + [i for _, i in pieces] + file_ids[merged:]


def _merge_parts(model: dict[str, Any]) -> tuple[list[str], list[str]] | None:
    """The merges' left and right parts, for the usual file (every merge a ``[left, right]`` list
    of two non-empty strings, or every one a ``"left right"`` string); None for anything else."""
    merges = model.get("merges", [])
    if not isinstance(merges, list):
        return None
    kinds = set(map(type, merges))
    if kinds <= {list}:
        pairs = merges
    elif kinds <= {str}:
        pairs = list(map(str.split, merges, repeat(" ")))
    else:
        return None
    if not set(map(len, pairs)) <= {2}:
        return None
    lefts, rights = list(map(itemgetter(0), pairs)), list(map(itemgetter(1), pairs))
    if not (set(map(type, lefts)) | set(map(type, rights)) <= {str} and all(lefts) and all(rights)):
        return None
    return lefts, rights


def _byte_level_quickly(
    path: Path, parts: tuple[list[str], list[str]] | None, vocab_raw: dict[str, int], specials: list[tuple[str, int]],
    pre: PreTokenizer,
) -> tuple[Tokenizer, list[int | None], list[str]] | None:
    """A byte-level file with nothing unusual in it, loaded without turning its tokens into bytes:
    every vocabulary token is byte-level text, and each character is one byte, so the tokens'
    texts match, join and repeat exactly as their bytes do (the tokenizer builds the bytes from
    the merges). None for anything else: :func:`_load_model` then reads it (and names what is wrong)."""
    if parts is None or not_byte_level().search("".join(vocab_raw)):
        return None
    names = byte_level_names()
    quick = quick_merges(names, list(map(vocab_raw.get, names)), vocab_raw, *parts)
    if quick is None:
        return None
    our_merges, file_ids, _ = quick
    try:
        tok, file_ids, warnings = built(path, "bytes", [bytes([b]) for b in range(256)], our_merges, file_ids, specials, pre, [])
    except TokenizerFileError:
        return None
    missing = sum(1 for name in names if name not in vocab_raw)
    if missing:
        warnings.append(f"the vocabulary lacks {missing} of the 256 bytes; text with them has no ids in the file")
    return tok, file_ids, warnings


def _load_model(
    path: Path, model: dict[str, Any], vocab_raw: dict[str, int], byte_level: bool, specials: list[tuple[str, int]],
    special_texts: set[str], pre: PreTokenizer, suffix: str | None = None, prefix: str | None = None,
) -> tuple[Tokenizer, list[int | None], list[str]]:
    """The tokenizer, file ids and warnings of the model, any file (the merges and vocabulary
    checked one by one where something is unusual, and what is wrong named). With an
    end-of-word ``suffix``, each base token comes twice: plain, then ending a word (``e</w>``);
    with a continuing-subword ``prefix`` twice before that: plain, then after the prefix
    (``##b``); then a marked twin the vocabulary lacks is the file's unk_token, as tokenizers makes it."""
    warnings: list[str] = []
    merges = _merge_list(model, path)
    # the keys build() takes: a token's bytes when byte-level, else its text
    vocab: dict[bytes, int] | dict[str, int]
    pairs: list[tuple[bytes, bytes]] | list[tuple[str, str]]
    if byte_level:
        try:
            vocab = dict(zip(unicode_to_tokens(list(vocab_raw)), vocab_raw.values()))
        except ValueError:
            by_bytes: dict[bytes, int] = {}
            for name, i in vocab_raw.items():
                try:
                    by_bytes[unicode_to_token(name)] = i
                except ValueError:
                    if name in special_texts:
                        continue  # a special spelled outside the byte-level characters
                    raise fail(path, f"vocabulary token {show(name)} is not byte-level text") from None
            vocab = by_bytes
        try:
            pairs = list(zip(unicode_to_tokens([a for a, _ in merges]), unicode_to_tokens([b for _, b in merges])))
        except ValueError as exc:
            raise fail(path, f"a merge is not byte-level text ({exc})") from None
        alphabet: list[Any] = [bytes([b]) for b in range(256)]
        missing = sum(1 for key in alphabet if key not in vocab and (suffix is None or key + suffix.encode() not in vocab))
        if missing:
            warnings.append(f"the vocabulary lacks {missing} of the 256 bytes; text with them has no ids in the file")
        base, spell = "bytes", lambda key: show(token_to_unicode(key))
        if prefix is not None:
            alphabet += [prefix.encode("utf-8") + key for key in alphabet]
        if suffix is not None:
            alphabet += [key + suffix.encode("utf-8") for key in alphabet]
    else:
        vocab = dict(vocab_raw)
        pairs = merges
        unk = model.get("unk_token")
        chars = sorted((n for n in vocab if len(n) == 1 and n not in special_texts), key=vocab.__getitem__)
        # a character seen only inside words or at their ends is in the vocabulary only marked
        marked = [(p, q) for p in ("", prefix or "") for q in ("", suffix or "") if p or q]
        for p, q in marked:
            found = [n[len(p) : len(n) - len(q)] for n in vocab
                     if len(n) == len(p) + len(q) + 1 and n.startswith(p) and n.endswith(q)]
            chars += [c for c in sorted(found, key=lambda c: vocab[p + c + q]) if c not in vocab and c not in chars]
        unknown = unk if isinstance(unk, str) and len(unk) == 1 else "\ufffd"
        alphabet = [unknown] + [c for c in chars if c != unknown]
        if unknown not in vocab and isinstance(unk, str) and unk in vocab_raw:
            vocab[unknown] = vocab_raw[unk]
        if not isinstance(unk, str):
            warnings.append("the file has no unk_token: tokenizers drops characters outside its alphabet, bpe-lab does not")
        base, spell = "chars", show
        if prefix is not None:
            alphabet += [prefix + c for c in alphabet]
        if suffix is not None:
            alphabet += [c + suffix for c in alphabet]
    base_ids = [vocab.get(key) for key in alphabet]
    if prefix is not None:  # a marked unit (##b, b</w>) tokenizers does not find is its unk_token
        unk = model.get("unk_token")
        unk_id = vocab_raw.get(unk) if isinstance(unk, str) else None
        block = len(alphabet) // (2 if suffix is None else 4)
        for i in range(block, len(base_ids)):
            if base_ids[i] is None:
                base_ids[i] = unk_id
        if fuse_unk := model.get("fuse_unk"):
            warnings.append(f"fuse_unk ({fuse_unk}) is ignored: unknown units in a row are an unk_token each")
    tok, file_ids, more = build(
        path, base=base, alphabet=alphabet, base_ids=base_ids, vocab=vocab, merges=pairs,
        specials=specials, pretokenizer=pre, spell=spell, end_of_word=suffix, subword_prefix=prefix,
    )
    return tok, file_ids, warnings + more


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    return sniffed.HF if probe.kind == "json" and isinstance(probe.data, dict) and "model" in probe.data else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    return load_hf(path, content)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    return save_hf(tok, path, ids)


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
