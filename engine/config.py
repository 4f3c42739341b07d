"""Training configuration: base alphabet, pre-tokenizer, tie rule and stop rules."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from engine.errors import ConfigError, one_line
from engine.text.pretokenize import check_pattern

BASES = ("bytes", "chars")
TIE_RULES = ("lowest-ids", "first-seen", "hf", "subword-nmt")
PRETOKENIZERS = ("none", "simple", "gpt2", "gpt4")

#: Largest id the trainer can hand out (pair keys pack two ids into one int).
MAX_VOCAB = 1 << 20
#: The largest count or index a user may give (a minimum pair count, a lesson's candidate or
#: step number): a signed 64-bit integer. The compiled core takes such values as ``int64_t`` and
#: ``Py_ssize_t`` (engine/native/train.pxi: the floor of ``index_pairs``, ``merge`` and the
#: queue's readers, the ``k`` of ``Queue.top``) and raises OverflowError past it, where the pure
#: path, on Python ints, would go on: values are refused past it where they enter (here, and
#: ``tui.lessons.kind.whole_number``), so that both paths give one answer. No pair count comes
#: near it: a corpus is refused at 2**50 tokens (``engine.train.loops.CMAX``).
MAX_WHOLE = (1 << 63) - 1
#: Config keys of older files -> the options' names now (:meth:`TrainConfig.from_dict`).
_OLD_KEYS = {"merges": "max_merges", "tie_break": "tie_rule"}
#: The bytes of all of a tokenizer's tokens together may be at most this many. Merges are a
#: few integers each, but every token holds the bytes of both tokens it joins, so a small file
#: whose merges chain (``a+a``, ``aa+a``, ``aaa+a``...) stands for a quadratic amount of bytes
#: (1.3 MB of merges, 5 GB of tokens). Real tokenizers hold 1-3 MB (cl100k about 1 MB, o200k
#: and 256k-token HuggingFace vocabularies a little more); at 16 MB every format bpe-lab writes
#: stays well under the 128 MB it reads (a byte-level ``tokenizer.json`` spends about four
#: bytes a vocabulary byte, in its vocabulary and its merges).
MAX_VOCAB_BYTES = 16 << 20


def _short(value: Any) -> str:
    """A value for an error line: its repr, cut short (it may come from a file)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides which merges a training run makes.

    Example: ``TrainConfig(base="chars", pretokenizer="none", tie_rule="first-seen", max_merges=4)``

    - ``base``: ``"bytes"`` (ids 0-255 are the bytes) or ``"chars"`` (id 0 is U+FFFD for
      unknown characters, then the corpus's distinct characters in sorted order, as seed 001).
    - ``pretokenizer``: ``"none"`` (the whole text is one sequence), ``"simple"`` (seed 000's
      `` ?\\w+| ?[^\\w\\s]+|\\s+``), ``"gpt2"``, ``"gpt4"`` (cl100k), or ``"custom"`` with ``pattern``.
    - ``split_digits``: every digit becomes a chunk of its own after pre-tokenizing.
    - ``tie_rule``: ``"lowest-ids"`` (highest count, then smallest left id, then smallest right
      id: seed 000) or ``"first-seen"`` (highest count, then the pair whose first occurrence
      comes earliest in the current corpus: seeds 001/002, minbpe, tiktoken's trainer) or
      ``"hf"`` (HuggingFace's BpeTrainer: highest count, then smallest pair in its id space,
      where bytes are ordered by their ByteLevel characters; training text is pre-tokenized
      line by line, as its trainer reads files) or ``"subword-nmt"`` (highest count, then the
      largest pair of token texts, compared left part first: subword-nmt's ``learn_bpe``).
    - stop rules: ``vocab_size`` (bases + merges + specials), ``max_merges`` (a merge count),
      ``min_frequency`` (stop when the best pair occurs fewer times; default 2), no pairs left.
    - ``no_merge_newline``: a pair whose concatenation contains a newline is never counted.
    - ``specials``: special tokens, given ids after the last merge (seed 000).
    - ``record_undo``: keep what each merge changed so it can be undone locally.
    - ``end_of_word``: the end-of-word suffix (``"</w>"``: CLIP, subword-nmt, Sennrich et al.
      2016), or None. The last unit of every chunk is then a base token of its own, spelled
      with the suffix (``e`` and ``e</w>``), so merges learn where words end; the base doubles.
    - ``subword_prefix``: the continuing-subword prefix (``"##"``: HuggingFace's BPE with
      ``continuing_subword_prefix``), or None. Every unit of a chunk but the first is then a base
      token of its own, spelled with the prefix (``b`` and ``##b``); the base doubles (again, with
      a suffix too: ``b``, ``##b``, ``b</w>``, ``##b</w>``).
    """

    base: str = "bytes"
    pretokenizer: str = "gpt2"
    pattern: str | None = None
    split_digits: bool = False
    tie_rule: str = "lowest-ids"
    vocab_size: int | None = None
    max_merges: int | None = None
    min_frequency: int = 2
    no_merge_newline: bool = False
    specials: tuple[str, ...] = field(default_factory=tuple)
    record_undo: bool = True
    end_of_word: str | None = None
    subword_prefix: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "specials", tuple(self.specials))
        self.validate()

    def validate(self) -> None:
        """Raise ``ConfigError`` (a ``ValueError``) with a one-line message when an option is out of range."""
        for name, label in (("vocab_size", "vocab size"), ("max_merges", "merges")):
            value = getattr(self, name)
            if value is not None and type(value) is not int:
                raise ConfigError(f"{label} must be a whole number, not {_short(value)}")
        if type(self.min_frequency) is not int:
            raise ConfigError(f"the minimum pair count must be a whole number, not {_short(self.min_frequency)}")
        if self.base not in BASES:
            raise ConfigError(f"unknown base {_short(self.base)} (choose bytes or chars)")
        if self.tie_rule not in TIE_RULES:
            raise ConfigError(
                f"unknown tie rule {_short(self.tie_rule)} (choose {', '.join(TIE_RULES)})"
            )
        if self.tie_rule == "hf" and self.base != "bytes":
            raise ConfigError("the hf tie rule reproduces byte-level training: use --base bytes")
        problem = end_of_word_problem(self.end_of_word)
        if problem:
            raise ConfigError(problem)
        problem = subword_prefix_problem(self.subword_prefix)
        if problem:
            raise ConfigError(problem)
        if self.end_of_word is not None and self.tie_rule == "hf":
            raise ConfigError("the hf tie rule reproduces byte-level training without a suffix: drop --end-of-word "
                              "or choose another tie rule")
        if self.pattern is not None and not isinstance(self.pattern, str):
            raise ConfigError(f"a pattern must be text, not {type(self.pattern).__name__}")
        if self.pretokenizer == "custom":
            if not self.pattern:
                raise ConfigError("the custom pre-tokenizer needs a pattern")
            check_pattern(self.pattern)  # a session's config must not compile a pattern of gigabytes
        elif self.pretokenizer not in PRETOKENIZERS:
            raise ConfigError(
                f"unknown pre-tokenizer {_short(self.pretokenizer)} "
                f"(choose {', '.join(PRETOKENIZERS)} or give a pattern)"
            )
        if self.max_merges is not None and self.max_merges < 0:
            raise ConfigError(f"the merge count must be 0 or more, not {_short(self.max_merges)}")
        if self.vocab_size is not None and self.vocab_size < 1:
            raise ConfigError(f"the vocabulary size must be 1 or more, not {_short(self.vocab_size)}")
        if self.vocab_size is not None and self.vocab_size > MAX_VOCAB:
            raise ConfigError(f"vocabulary size {_short(self.vocab_size)} is too large (at most {MAX_VOCAB})")
        if self.max_merges is not None and self.max_merges > MAX_VOCAB:
            raise ConfigError(f"merge count {_short(self.max_merges)} is too large (at most {MAX_VOCAB})")
        if self.min_frequency < 1:
            raise ConfigError(f"the minimum pair count must be 1 or more, not {_short(self.min_frequency)}")
        if self.min_frequency > MAX_WHOLE:
            raise ConfigError(f"minimum pair count {_short(self.min_frequency)} is too large (at most {MAX_WHOLE})")
        seen: set[str] = set()
        for token in self.specials:
            if not isinstance(token, str):
                raise ConfigError(f"a special token must be text, not {_short(token)}")
            if not token:
                raise ConfigError("a special token cannot be empty")
            if token in seen:
                raise ConfigError(f"special token {_short(token)} is given twice")
            problem = special_text_problem(token)
            if problem:
                raise ConfigError(f"{problem}: give specials as valid UTF-8")
            seen.add(token)

    def with_changes(self, **changes: Any) -> TrainConfig:
        """A copy with some options changed (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict of every option."""
        data = asdict(self)
        data["specials"] = list(self.specials)
        if self.end_of_word is None:
            del data["end_of_word"]  # files and sessions without it stay as they were
        if self.subword_prefix is None:
            del data["subword_prefix"]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Build from :meth:`to_dict` output; unknown keys and values of the wrong type are a
        ``ConfigError`` (one line: the data may come from a file, a session say). Files written
        before the options were renamed say ``merges`` and ``tie_break``: they are read too."""
        if not isinstance(data, dict):
            raise ConfigError(f"the training options must be an object, not {type(data).__name__}")
        values = dict(data)
        for old, new in _OLD_KEYS.items():
            if old in values:
                if new in values:
                    raise ConfigError(f"config keys {old!r} and {new!r} are the same option: give one")
                values[new] = values.pop(old)
        known = set(cls.__dataclass_fields__)
        unknown = set(values) - known
        if unknown:
            names = sorted(str(k)[:40] for k in unknown)
            more = f" and {len(names) - 5} more" if len(names) > 5 else ""
            raise ConfigError(f"unknown config keys: {', '.join(names[:5])}{more}")
        for name in ("split_digits", "no_merge_newline", "record_undo"):
            if name in values and type(values[name]) is not bool:
                raise ConfigError(f"{name.replace('_', ' ')} must be true or false, not {type(values[name]).__name__}")
        for name in ("base", "pretokenizer", "tie_rule"):
            if name in values and not isinstance(values[name], str):
                raise ConfigError(f"the {name.replace('_', ' ')} must be a name, not {type(values[name]).__name__}")
        if "specials" in values:
            if not isinstance(values["specials"], (list, tuple)):
                raise ConfigError("the specials must be a list of tokens")
            values["specials"] = tuple(values["specials"])
        return cls(**values)


#: The longest end-of-word suffix (CLIP's and subword-nmt's ``</w>`` is 4 characters).
MAX_SUFFIX = 16


def end_of_word_problem(suffix: object) -> str | None:
    """Why ``suffix`` cannot be an end-of-word suffix, or None (None itself is fine: no suffix).

    Example: ``end_of_word_problem("")`` -> ``"the end-of-word suffix cannot be empty (give </w>, say)"``"""
    return _mark_problem(suffix, "end-of-word suffix", "</w>")


def subword_prefix_problem(prefix: object) -> str | None:
    """Why ``prefix`` cannot be a continuing-subword prefix, or None (None is fine: no prefix).

    Example: ``subword_prefix_problem(" ")`` -> ``"the subword prefix ' ' holds a space ..."``"""
    return _mark_problem(prefix, "subword prefix", "##")


def _mark_problem(mark: object, what: str, example: str) -> str | None:
    if mark is None:
        return None
    if not isinstance(mark, str):
        return f"the {what} must be text, not {type(mark).__name__}"
    if not mark:
        return f"the {what} cannot be empty (give {example}, say)"
    if len(mark) > MAX_SUFFIX:
        return f"the {what} {_short(mark)} is longer than {MAX_SUFFIX} characters"
    try:
        mark.encode("utf-8")
    except UnicodeEncodeError:
        return f"the {what} {_short(mark)} is not UTF-8 text"
    if any(c.isspace() or not c.isprintable() for c in mark):
        return f"the {what} {_short(mark)} holds a space or a control character (give {example}, say)"
    return None


def special_text_problem(token: str) -> str | None:
    """Why ``token`` cannot be a special token's text, or None.

    A special is written to files and stdout as UTF-8, so it may not hold a lone surrogate
    (what invalid bytes in a command-line argument become: ``$'\\xff'`` arrives as ``'\\udcff'``).
    Checked before training and when a file is read, not when the text is first written.

    Example: ``special_text_problem("\\udcff")`` ->
    ``"special token '\\\\udcff' holds a lone surrogate (U+DCFF), which is not UTF-8 text"``
    """
    try:
        token.encode("utf-8")
    except UnicodeEncodeError as exc:
        shown = one_line(repr(token))
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        bad = ord(token[exc.start])
        return f"special token {shown} holds a lone surrogate (U+{bad:04X}), which is not UTF-8 text"
    return None


def check_specials(specials: Sequence[str], chunks: Iterable[str], base: str, alphabet: Sequence[str] | None = None) -> None:
    """Refuse special tokens that are, or could become, ordinary tokens (``ConfigError``).

    A special that is a base token (one byte, or a character of the chars base's alphabet) or
    that the pre-tokenizer leaves inside a chunk of the corpus (so training could learn it as an
    ordinary token) would make one text two tokens: encode would always pick the special, and
    the string-keyed formats cannot hold both. ``chunks`` are the corpus's distinct chunks.
    """
    if not specials:
        return
    letters = set(alphabet or ())
    for token in specials:
        try:
            size = len(token.encode("utf-8", "surrogateescape"))
        except UnicodeEncodeError:
            raise ConfigError(f"special token {token!r} cannot be written as UTF-8") from None
        if base == "bytes" and size == 1:
            raise ConfigError(f"special token {token!r} is a single byte, already base token {ord(token)}: choose a longer text")
        if base == "chars" and token in letters:
            raise ConfigError(f"special token {token!r} is a character of the corpus, already a base token: choose a longer text")
    separator = next(c for c in ("\x00", "\x01", "\uffff", "\U0010ffff") if not any(c in t for t in specials))
    joined = separator.join(chunks)
    for token in specials:
        if token in joined:
            raise ConfigError(
                f"special token {token!r} occurs in the corpus inside a pre-tokenizer chunk, so training could learn "
                "it as an ordinary token: choose a text the corpus does not hold"
            )
