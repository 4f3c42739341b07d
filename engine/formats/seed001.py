"""Seed 001's ``tokenizer.json``: ``{"vocab": [...], "merges": [[[a, b], id], ...]}``.

``vocab`` lists token strings in id order: id 0 is ``"\\ufffd"`` (any unknown character), then
the corpus's characters, then one entry per merge; a merge ``[[a, b], id]`` makes ``id`` from
``vocab[a] + vocab[b]``. Its code (``BPE(**json.load(...))``) has no pre-tokenizer: the text is one
sequence. Ids are identical to bpe-lab's chars base; specials, which the seed has not, are
written after the merges (the seed's code decodes them but encodes their text as characters).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.encode.tokenizer import Tokenizer
from engine.errors import ExportError
from engine.formats import sniff as sniffed
from engine.formats.common import Imported, check_special, fail, read_json, show, write_json
from engine.text.pretokenize import PreTokenizer

if TYPE_CHECKING:
    from engine.formats.sniff import Probe


def _plain_enough(tok: Tokenizer) -> str | None:
    """Why the seed's code (no pre-tokenizer) would encode differently, or None."""
    pre = tok.pretokenizer
    if pre.name != "none":
        return f"seed 001's format has no pre-tokenizer and this tokenizer splits text ({pre.name}); use hf or native"
    merged = [tok.pieces[i].decode("utf-8", "replace") for i in range(tok.base_size, len(tok.pieces))]
    if pre.split_newlines and any("\n" in m for m in merged):
        return "this tokenizer splits at newlines, which seed 001's format cannot say; use hf or native"
    if pre.split_digits and any(any(c.isnumeric() for c in m) for m in merged):
        return "this tokenizer splits digits, which seed 001's format cannot say; use hf or native"
    return None


def save_seed001(tok: Tokenizer, path: str | Path) -> list[str]:
    """Write seed 001's JSON (atomically); returns warnings."""
    if tok.base != "chars" or tok.alphabet is None:
        raise ExportError("seed 001's format is for the chars base; this tokenizer has the bytes base (use hf, gpt2 or tiktoken)")
    reason = _plain_enough(tok)
    if reason:
        raise ExportError(reason)
    vocab = list(tok.alphabet)
    merges: list[Any] = []
    for k, (a, b) in enumerate(tok.merges):
        vocab.append(vocab[a] + vocab[b])
        merges.append([[a, b], tok.base_size + k])
    vocab.extend(tok.specials)
    warnings = []
    if tok.specials:
        warnings.append("seed 001's code knows no special tokens: they are written after the merges, "
                        "and it encodes their text as characters")
    write_json(path, {"vocab": vocab, "merges": merges})
    return warnings


def load_seed001(path: str | Path, data: Any = None) -> Imported:
    """Read seed 001's JSON; every structural fault raises ValueError naming the file.

    ``data`` is the file's JSON when it was read already."""
    path = Path(path)
    if data is None:
        data = read_json(path)
    if not (isinstance(data, dict) and isinstance(data.get("vocab"), list) and isinstance(data.get("merges"), list)):
        raise fail(path, "not a seed 001 tokenizer (expected {\"vocab\": [...], \"merges\": [...]})")
    vocab, merges = data["vocab"], data["merges"]
    if not all(isinstance(t, str) and t for t in vocab):
        raise fail(path, "every vocab entry must be a non-empty string")
    shaped = []
    for k, entry in enumerate(merges):
        ok = (
            isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], list) and len(entry[0]) == 2
            and all(type(x) is int for x in (*entry[0], entry[1]))
        )
        if not ok:
            raise fail(path, f"merge {k + 1} is not [[left, right], id]")
        shaped.append((entry[0][0], entry[0][1], entry[1]))
    if not vocab:
        raise fail(path, "\"vocab\" is empty (seed 001 files list the alphabet first, then one token per merge)")
    if shaped:
        base_size = shaped[0][2]
        if base_size <= 0:
            raise fail(path, f"merge 1 makes id {base_size}, which leaves no alphabet before it "
                             "(seed 001 files list the alphabet first)")
        if base_size > len(vocab):
            raise fail(path, f"merge 1 makes id {base_size}, outside the vocab (0-{len(vocab) - 1})")
    else:
        base_size = sum(1 for _ in _leading_chars(vocab))
        if not base_size:
            raise fail(path, f"vocab entry 0 {show(vocab[0])} is not one character (seed 001 files list the alphabet first)")
    alphabet = vocab[:base_size]
    for i, c in enumerate(alphabet):
        if len(c) != 1:
            raise fail(path, f"vocab entry {i} {show(c)} comes before the first merge's id but is not one character")
    if len(set(alphabet)) != len(alphabet):
        raise fail(path, "the base characters repeat a character")
    pairs: dict[tuple[int, int], int] = {}
    for k, (a, b, new_id) in enumerate(shaped):
        where = f"merge {k + 1} [[{a}, {b}], {new_id}]"
        if new_id != base_size + k:
            raise fail(path, f"{where} should make id {base_size + k} (merges make ids in order)")
        if new_id >= len(vocab):
            raise fail(path, f"{where} makes an id outside the vocab (0-{len(vocab) - 1})")
        if not (0 <= a < len(vocab) and 0 <= b < len(vocab)):
            raise fail(path, f"{where} refers to an id outside the vocab (0-{len(vocab) - 1})")
        if a == new_id or b == new_id:
            raise fail(path, f"{where} refers to the id it makes itself")
        if a > new_id or b > new_id:
            raise fail(path, f"{where} refers to an id only a later merge makes")
        if (a, b) in pairs:
            raise fail(path, f"{where} repeats merge {pairs[(a, b)] + 1}")
        pairs[(a, b)] = k
        if vocab[new_id] != vocab[a] + vocab[b]:
            raise fail(path, f"{where} makes {show(vocab[a] + vocab[b])} but vocab[{new_id}] is {show(vocab[new_id])}")
    specials = vocab[base_size + len(shaped):]
    for token in specials:
        check_special(path, token)
    try:
        tok = Tokenizer([(a, b) for a, b, _ in shaped], base="chars", alphabet=alphabet, specials=specials,
                        pretokenizer=PreTokenizer("none"))
    except ValueError as exc:
        raise fail(path, str(exc)) from None
    return Imported(tok, "seed001", str(path))


def _leading_chars(vocab: list[str]):
    for token in vocab:
        if len(token) != 1:
            return
        yield token


# -- the format's hooks (engine.formats.REGISTRY) --------------------------------------------


def sniff(probe: Probe) -> int:
    data = probe.data
    if probe.kind == "json" and isinstance(data, dict) and isinstance(data.get("vocab"), list) and "merges" in data:
        return sniffed.SEED001
    return 0


def load(path: Path, content: Any, pretokenizer: PreTokenizer | None, need_pattern: bool) -> Imported:
    return load_seed001(path, content)


def save(tok: Tokenizer, path: Path, ids: Sequence[int | None] | None, source: str) -> list[str]:
    return save_seed001(tok, path)


def reads(path: Path) -> list[Path]:
    return [path]


writes = reads
