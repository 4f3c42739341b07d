"""What every format shares: the imported result with its id mapping, file reading, and the
builder that turns a vocabulary (token -> file id) plus ordered merges into an engine Tokenizer.

Our ids are structural (bytes base: ids 0-255 are the bytes; merge k makes id base + k; specials
follow the merges). A file from another library numbers tokens its own way, so an import keeps
``file_ids``: ``file_ids[our_id]`` is the id the file gives that token (None: the file has none).
"""

from __future__ import annotations

import json
import operator
from collections.abc import ItemsView, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from operator import itemgetter
from pathlib import Path
from typing import Any, TypeGuard, TypeVar

from engine.config import special_text_problem
from engine.corpus.files import atomic_write_bytes, parse_json, read_file
from engine.encode.models import MergeRules, RankMerging, WholeFirst
from engine.encode.tokenizer import Tokenizer
from engine.encode.vocabulary import BaseUnits, Vocabulary
from engine.errors import TokenIdError, TokenizerFileError
from engine.text.pretokenize import NAMED_PATTERNS, PreTokenizer

#: Seed 000's pattern as other regex engines must spell it: Python's ``re`` (which the simple
#: pre-tokenizer uses) counts U+001C-U+001F as whitespace and only letters, numbers and ``_`` as
#: word characters, while Oniguruma (tokenizers) and fancy-regex (tiktoken) differ on both.
SIMPLE_PORTABLE = r" ?[\p{L}\p{N}_]+| ?[^\p{L}\p{N}_\s\x1c-\x1f]+|[\s\x1c-\x1f]+"


def portable_pattern(pre: PreTokenizer) -> str:
    """The pattern to write for other libraries' regex engines (splits as ``pre`` does)."""
    return SIMPLE_PORTABLE if pre.name == "simple" else (pre.pattern or "")


def pretokenizer_from_pattern(source: str, *, split_digits: bool = False, split_newlines: bool = False,
                              per_line: bool = False) -> PreTokenizer:
    """A named pre-tokenizer when ``source`` is one of ours (or the portable simple), else custom
    (the options as :class:`~engine.text.pretokenize.PreTokenizer` takes them)."""
    if source == SIMPLE_PORTABLE:
        name = "simple"
    else:
        name = next((named for named, pattern in NAMED_PATTERNS.items() if pattern == source), "custom")
    return PreTokenizer(name, source if name == "custom" else None, split_digits=split_digits,
                        split_newlines=split_newlines, per_line=per_line)


@dataclass
class Imported:
    """A tokenizer read from a file, with the file's own ids.

    ``encode``/``decode`` speak the file's ids (what the library that reads the file gives);
    ``tokenizer`` speaks ours. ``warnings`` are one-line notes (ambiguous recovery, dropped parts).
    """

    tokenizer: Tokenizer
    format: str
    path: str
    file_ids: list[int | None] | None = None
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        #: the file's ids -> ours, built by the first from_file_ids (encoding never needs it); its
        #: None key (tokens the file has no id for) is taken out once built
        self._ours: dict[int | None, int] | None = None
        self._gaps: bool | None = None  # whether some token has no file id (to_file_ids checks then)
        self._texts: list[str | None] | None = None  # ids_text's table, built at its first use

    def _file_to_ours(self) -> dict[int | None, int]:
        """Theirs -> ours, the first of ours where two share a file id (built from the end)."""
        if self._ours is None:
            ids = self.file_ids or []
            self._ours = dict(zip(reversed(ids), range(len(ids) - 1, -1, -1)))
            self._ours.pop(None, None)
        return self._ours

    def to_file_ids(self, ids: Iterable[int]) -> list[int]:
        """Our ids as the file numbers them; a token the file lacks raises ValueError."""
        if self.file_ids is None:
            return list(ids)
        ids = ids if isinstance(ids, list) else list(ids)
        out = list(map(self.file_ids.__getitem__, ids))  # one C-level step
        if self._gaps is None:
            self._gaps = None in self.file_ids
        if self._gaps and None in out:
            i = ids[out.index(None)]
            raise TokenIdError(f"{self.path}: the file has no id for token {show(self.tokenizer.token_bytes(i))}")
        return out  # type: ignore[return-value]

    def ids_text(self, ids: list[int]) -> str:
        """``to_file_ids(ids)`` written out in decimal, separated by spaces (``bpe-lab encode``'s
        output): in one C-level pass with the compiled core (``engine.native.compiled.ids_text``), else
        (and for any id it cannot map, which raises here as in :meth:`to_file_ids`) from a table
        of each id's text."""
        from engine.native import backend

        if type(ids) is list:
            text = backend().ids_text(ids, self.file_ids)
            if text is not None:
                return text
        texts = self._texts
        if texts is None:  # each id's decimal text, once (a lookup an id, not a conversion)
            numbers = self.file_ids if self.file_ids is not None else range(self.tokenizer.vocab_size)
            texts = self._texts = [None if i is None else str(i) for i in numbers]
        try:
            # an id the file lacks is None here, which join refuses with the TypeError below (a
            # check of each id would cost what the table saves, so the type checker is told so)
            return " ".join(map(texts.__getitem__, ids))  # type: ignore[arg-type]
        except (TypeError, IndexError):  # an id the file lacks: to_file_ids says which
            return " ".join(map(str, self.to_file_ids(ids)))

    def from_file_ids(self, ids: Iterable[int]) -> list[int]:
        """The file's ids as ours; an id the file does not use raises ValueError."""
        if self.file_ids is None:
            return list(ids)
        out = []
        to_ours = self._file_to_ours()
        for i in ids:
            ours = to_ours.get(i) if type(i) is int else None
            if ours is None:
                raise TokenIdError(f"token id {show(i)} is not in {self.path}")
            out.append(ours)
        return out

    def encode(self, text: str) -> list[int]:
        """Encode in the file's ids."""
        return self.to_file_ids(self.tokenizer.encode(text))

    def decode(self, ids: Iterable[int]) -> str:
        """Decode the file's ids."""
        return self.tokenizer.decode(self.from_file_ids(ids))


@dataclass
class _Beside:
    """What :func:`quoting_beside` keeps while a named file is read."""

    folders: tuple[Path, ...]
    named: str
    #: The files read so far that lead outside ``folders``
    elsewhere: list[str] = field(default_factory=list)


#: While :func:`engine.formats.load_any` reads a named file: the folders its companions are
#: expected in (the named file's, as named and as its link leads), and what was read elsewhere.
_BESIDE: ContextVar[_Beside | None] = ContextVar("bpe_lab_beside", default=None)


@contextmanager
def quoting_beside(named: Path) -> Iterator[None]:
    """While a named tokenizer file is read: an error quotes what the files hold only when every
    file read with it (merges beside a vocab, added tokens, a sidecar) is beside it. Once one that
    leads elsewhere was read (a link to ``/etc/passwd`` or a key), an error names the files and
    shows nothing they hold (:func:`fail`): its words could come from that file. A cache of
    links to blobs, as Hugging Face's, still loads: links are followed; only an error's words
    change."""
    folders = (named.resolve(),) if named.is_dir() else (named.parent.resolve(), named.resolve().parent)
    token = _BESIDE.set(_Beside(folders, str(named)))
    try:
        yield
    finally:
        _BESIDE.reset(token)


def _read_for(path: str | Path) -> None:
    """Note ``path`` as read for the named file when it leads outside the named file's folders."""
    beside = _BESIDE.get()
    if beside is None:
        return
    try:
        resolved = Path(path).resolve()
    except (OSError, RuntimeError, ValueError):
        return
    if not any(resolved.is_relative_to(folder) for folder in beside.folders):
        beside.elsewhere.append(str(path))


def fail(path: str | Path, message: str) -> TokenizerFileError:
    """A one-line error naming the file. Once a file that leads out of the named one's folder was
    read for it (see :func:`quoting_beside`), the line shows nothing the files hold."""
    beside = _BESIDE.get()
    if beside is not None and beside.elsewhere:
        return TokenizerFileError(f"{beside.elsewhere[0]}: is not what {beside.named} needs beside it (it leads to "
                                  f"a file outside that folder, whose content is not shown)")
    return TokenizerFileError(f"{path}: {message}")


def check_special(path: str | Path, token: str) -> None:
    """A special token's text must be UTF-8 text (no lone surrogates, which JSON's ``\\udcff``
    escapes can spell): refused when the file is read, before encode or export meets it."""
    problem = special_text_problem(token)
    if problem:
        raise fail(path, problem)


def read_raw(path: str | Path) -> bytes:
    """A file's bytes (bounded as :func:`read_text`), for a reader that decides itself whether it is text."""
    raw = read_file(path)
    _read_for(path)
    return raw


def read_text(path: str | Path) -> str:
    """A UTF-8 file's text; unreadable files (or files above the size limit) raise
    ``TokenizerFileError`` naming the path."""
    raw = read_file(path)
    _read_for(path)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise fail(path, "not a text file (invalid UTF-8)") from None


def read_json(path: str | Path) -> Any:
    """A JSON file's value; bad JSON raises ``TokenizerFileError`` naming the path and place."""
    return parse_json(read_text(path), path)


def json_bytes(data: Any) -> bytes:
    """JSON as bpe-lab writes it: UTF-8, readable characters, indented, one final newline."""
    return (json.dumps(data, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def write_json(path: str | Path, data: Any) -> None:
    """Write JSON (UTF-8, readable characters) atomically."""
    atomic_write_bytes(path, json_bytes(data))


#: Ids in files are unsigned 32-bit numbers for the libraries that read them (tokenizers, tiktoken).
MAX_ID = 2**32 - 1


def is_id(value: object) -> TypeGuard[int]:
    """A non-negative integer (not a bool) a 32-bit id can hold."""
    return type(value) is int and 0 <= value <= MAX_ID


_T = TypeVar("_T")


def no_gaps(items: list[_T | None]) -> TypeGuard[list[_T]]:
    """Whether ``items`` holds no None (one C-level scan), so that a type checker knows it then.
    Example: ``no_gaps([1, None]) -> False``"""
    return None not in items


def show(token: object) -> str:
    """A token (or any value a file gave) for an error line: its repr, cut short."""
    text = repr(token)
    return text if len(text) <= 40 else text[:37] + "..."


def build(
    path: str | Path,
    *,
    base: str,
    alphabet: Sequence[Any],
    base_ids: Sequence[int | None],
    vocab: dict[Any, int] | None,
    merges: Sequence[tuple[Any, Any]],
    specials: Sequence[tuple[str, int]],
    pretokenizer: PreTokenizer,
    spell: Any = show,
    whole: tuple[bool, Sequence[tuple[bytes, int]], Sequence[int] | None] = (False, (), None),
    end_of_word: str | None = None,
    subword_prefix: str | None = None,
) -> tuple[Tokenizer, list[int | None], list[str]]:
    """The engine tokenizer for a vocabulary plus ordered merges, with ``file_ids`` and warnings.

    Tokens are keys (bytes for the bytes base, str for the chars base); ``alphabet`` lists the base
    keys in our id order and ``base_ids`` their file ids. ``vocab`` maps every key to its file id
    (None: the merge products' ids are their ranks, as in tiktoken). A merge must use tokens made
    before it and make a token the vocabulary holds; a pair may not repeat. A product made twice
    (two pairs, the same token) keeps both merges and maps both to the file's one id.
    ``whole`` is whether chunks are looked up as whole tokens first, the tokens (bytes, file id)
    only that lookup gives, and their ``whole_ranks`` (see :class:`~engine.encode.tokenizer.Tokenizer`).
    With ``end_of_word``, ``alphabet`` is the base keys and then each again ending a word (their
    keys spelled with the suffix), as the tokenizer numbers them. With ``subword_prefix``, the base
    keys come twice before that: plain, then after the prefix (``b``, ``##b``); a merge's token
    is its left key joined to its right key less the prefix (tokenizers' rule), and a merge whose
    right part lacks the prefix is refused (it never applies).
    """
    cut = 0 if subword_prefix is None else len(subword_prefix if base == "chars" else subword_prefix.encode("utf-8"))
    mark = subword_prefix if base == "chars" else (subword_prefix or "").encode("utf-8")
    quick = _build_quickly(alphabet, base_ids, vocab, merges, cut)
    if quick is not None:
        our_merges, file_ids, products = quick
        # byte-level tokens are their keys: the products are the tokens, already joined
        pieces = [*alphabet, *products] if base == "bytes" else None
        try:
            return built(path, base, alphabet, our_merges, file_ids, specials, pretokenizer, [], pieces, whole, end_of_word,
                         subword_prefix)
        except TokenizerFileError:
            pass  # e.g. a pair merged twice: the loop below names the merge, spelled as tokens
    made: dict[Any, int] = {key: i for i, key in enumerate(alphabet)}
    file_ids = list(base_ids)  # (typed as the quick path's above: list[int | None])
    first_rule: dict[Any, int] = {}
    for k, (left, right) in enumerate(merges):
        product = left + right[cut:]
        first_rule.setdefault(product, k)
    pairs: dict[tuple[int, int], int] = {}
    our_merges = []
    repeats = 0
    warnings: list[str] = []
    #: a key an earlier merge made again -> the other tokens of that key (the file has one id for
    #: them all, so a later merge of that key applies to each: one merge of ours for each)
    twins: dict[Any, list[int]] = {}
    for k, (left, right) in enumerate(merges):
        ids = []
        for part in (left, right):
            our = made.get(part)
            if our is None:
                if part in first_rule and first_rule[part] >= k:
                    raise fail(path, f"merge {k + 1} ({spell(left)} + {spell(right)}) uses {spell(part)}, which only a later merge makes")
                raise fail(path, f"merge {k + 1} ({spell(left)} + {spell(right)}) uses {spell(part)}, "
                                 "which is neither a base token nor made by an earlier merge")
            ids.append(our)
        if cut and not right.startswith(mark):
            raise fail(path, f"merge {k + 1} ({spell(left)} + {spell(right)}): its right part lacks the subword prefix "
                             f"{subword_prefix!r}, so it never follows another token (bpe-lab reads merges whose right part has it)")
        pair = (ids[0], ids[1])
        if pair in pairs:
            raise fail(path, f"merge {k + 1} ({spell(left)} + {spell(right)}) repeats merge {pairs[pair] + 1}")
        product = left + right[cut:]
        if vocab is None:
            theirs = None
        else:
            theirs = vocab.get(product)
            if theirs is None:
                raise fail(path, f"merge {k + 1} ({spell(left)} + {spell(right)}) makes {spell(product)}, which is not in the vocabulary")
        if product in made:
            repeats += 1
        # (a right part's twin that starts a word never follows another token: with a prefix, only
        # the left part's twins)
        rights = [ids[1]] if cut else [ids[1], *twins.get(right, ())]
        combos = [pair] + [(a, b) for a in [ids[0], *twins.get(left, ())] for b in rights if (a, b) != pair]
        for combo in combos:
            if combo in pairs:
                continue
            pairs[combo] = k
            new_id = len(alphabet) + len(our_merges)
            file_ids.append(theirs)
            if product in made:
                twins.setdefault(product, []).append(new_id)
            else:
                made[product] = new_id
            our_merges.append(combo)
    if repeats:
        warnings.append(f"{repeats} merge(s) make a token an earlier merge already made; both map to the file's one id")
    return built(path, base, alphabet, our_merges, file_ids, specials, pretokenizer, warnings, whole=whole,
                 end_of_word=end_of_word, subword_prefix=subword_prefix)


def _build_quickly(
    alphabet: Sequence[Any], base_ids: Sequence[int | None], vocab: dict[Any, int] | None, merges: Sequence[tuple[Any, Any]],
    cut: int = 0,
) -> tuple[list[tuple[int, int]], list[int | None], list[Any]] | None:
    """:func:`build`'s merges, file ids and merged keys for a file with nothing unusual in it (every part made
    earlier, no product made twice, every product in the vocabulary), worked out with C-level
    maps; None for anything else, which :func:`build`'s loop then reports."""
    return quick_merges(alphabet, base_ids, vocab, [left for left, _ in merges], [right for _, right in merges], cut)


def quick_merges(
    alphabet: Sequence[Any], base_ids: Sequence[int | None], vocab: dict[Any, int] | None, lefts: list[Any], rights: list[Any],
    cut: int = 0,
) -> tuple[list[tuple[int, int]], list[int | None], list[Any]] | None:
    """:func:`_build_quickly` for merges given as their left and right parts (``cut``: the
    length of a subword prefix, which a merge's token leaves out of its right part)."""
    first = len(alphabet)
    made: dict[Any, int] = {key: i for i, key in enumerate(alphabet)}
    products = list(map(operator.add, lefts, [right[cut:] for right in rights] if cut else rights))
    made.update(zip(products, range(first, first + len(products))))
    if len(made) != first + len(products):
        return None  # a product made twice, or a product that is a base token
    left_ids = list(map(made.get, lefts))
    right_ids = list(map(made.get, rights))
    if not (no_gaps(left_ids) and no_gaps(right_ids)):
        return None
    made_by = range(first, first + len(products))
    if not (all(map(operator.lt, left_ids, made_by)) and all(map(operator.lt, right_ids, made_by))):
        return None  # a part that only a later merge makes
    our_merges = list(zip(left_ids, right_ids))  # a pair given twice: the tokenizer refuses it
    file_ids: list[int | None] = list(base_ids)
    if vocab is None:
        file_ids += [None] * len(products)
    else:
        theirs = list(map(vocab.get, products))
        if not no_gaps(theirs):
            return None
        file_ids += theirs
    return our_merges, file_ids, products


def built(
    path: str | Path, base: str, alphabet: Sequence[Any], our_merges: list[tuple[int, int]], file_ids: list[int | None],
    specials: Sequence[tuple[str, int]], pretokenizer: PreTokenizer, warnings: list[str], pieces: list[bytes] | None = None,
    whole: tuple[bool, Sequence[tuple[bytes, int]], Sequence[int] | None] = (False, (), None),
    end_of_word: str | None = None,
    subword_prefix: str | None = None,
) -> tuple[Tokenizer, list[int | None], list[str]]:
    whole_first, whole_pieces, whole_ranks = whole
    blocks = (1 if end_of_word is None else 2) * (1 if subword_prefix is None else 2)
    plain = alphabet[: len(alphabet) // blocks]  # the marked twins follow
    file_ids.extend(theirs for _, theirs in whole_pieces)
    tokenizer_specials = []
    for text, theirs in specials:
        check_special(path, text)
        tokenizer_specials.append(text)
        file_ids.append(theirs)
    try:
        units = BaseUnits(base, list(plain) if base == "chars" else None, end_of_word=end_of_word,
                          subword_prefix=subword_prefix)
        vocab = Vocabulary.from_parts(units, [a for a, _ in our_merges], [b for _, b in our_merges], tokens=pieces,
                                      whole_pieces=[piece for piece, _ in whole_pieces], specials=tokenizer_specials)
        model = (MergeRules(vocab) if not whole_first else WholeFirst(vocab) if whole_ranks is None
                 else RankMerging(vocab, whole_ranks))
        tok = Tokenizer.compose(model, pretokenizer=pretokenizer)
    except ValueError as exc:
        raise fail(path, str(exc)) from None
    return tok, file_ids, warnings


def check_unique_ids(path: str | Path, entries: Iterable[tuple[Any, int]], what: str = "vocabulary") -> None:
    """Every id in ``entries`` (key, id; a list or a dict's items) is a non-negative int used once."""
    if not isinstance(entries, (list, tuple, ItemsView)):
        entries = list(entries)  # read twice below when something is wrong
    ids = list(map(itemgetter(1), entries))
    if set(map(type, ids)) <= {int} and min(ids, default=0) >= 0 and max(ids, default=0) <= MAX_ID and len(set(ids)) == len(ids):
        return  # the usual case, checked at C speed; the loop below names what is wrong
    seen: dict[int, Any] = {}
    for key, value in entries:
        if not is_id(value):
            raise fail(path, f"{what} id {show(value)} of {show(key)} is not a non-negative integer (at most {MAX_ID})")
        if value in seen:
            raise fail(path, f"{what} id {value} is given to both {show(seen[value])} and {show(key)}")
        seen[value] = key


def identity(file_ids: Sequence[int | None]) -> bool:
    """Whether a mapping is our ids unchanged."""
    return list(file_ids) == list(range(len(file_ids)))


def output_ids(tok: Tokenizer, ids: Sequence[int | None] | None) -> list[int]:
    """The id each of our tokens gets in a file: ``ids`` when given and complete, else ours.

    Tokens with the same bytes (two merges making one token) share the first one's id, since a
    string-keyed vocabulary holds each token once.
    """
    if ids is not None and len(ids) == tok.vocab_size and all(i is not None for i in ids):
        return list(ids)  # type: ignore[arg-type]
    first: dict[bytes, int] = {}
    out = []
    for i, piece in enumerate(tok.pieces):
        out.append(first.setdefault(piece, i))
    out.extend(range(len(tok.pieces), tok.vocab_size))  # whole pieces and specials
    return out


def fold_note(tok: Tokenizer) -> list[str]:
    """A warning when tokens repeat an earlier token's bytes (a string-keyed file folds them)."""
    repeats = len(tok.pieces) - len(set(tok.pieces))
    if not repeats:
        return []
    return [f"{repeats} token(s) repeat an earlier token's bytes; the file gives them the earlier token's id"]


def byte_alphabet(table: dict[bytes, int], what: str, warnings: list[str], mark: bytes = b"") -> tuple[list[bytes], list[int | None]]:
    """The 256 single bytes and their ids in a file's ``table``; a warning when some are missing
    (with an end-of-word ``mark``, a byte whose marked twin is there is not missing).

    ``what`` starts the warning ("the vocabulary lacks", "the ranks lack").
    """
    alphabet = [bytes([b]) for b in range(256)]
    missing = sum(1 for key in alphabet if key not in table and not (mark and key + mark in table))
    if missing:
        warnings.append(f"{what} {missing} of the 256 bytes; text with them has no ids in the file")
    return alphabet, [table.get(key) for key in alphabet]
