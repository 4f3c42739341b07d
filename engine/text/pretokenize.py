"""Pre-tokenizers: split text into chunks; merges never cross a chunk boundary.

A pre-tokenizer runs one regex (the ``regex`` module's, for ``\\p{L}`` and possessive
quantifiers) over the text, as tiktoken and minbpe do, and its matches are the chunks; digit
and newline splitting cut them further. The named patterns (GPT-2's, GPT-4's cl100k, o200k's
and their other spellings, :data:`SAME_AS`) match every character and look at most one
character past a match, so a long text can be scanned a piece at a time (:func:`scan_pieces`)
and a file a block at a time (:mod:`engine.corpus.reading`): the list of all its chunks never
exists at once. A custom pattern is bounded in size (:mod:`engine.text.pattern_bounds`) and in
time (:func:`bounded`).

This is the readable reference. With the compiled core, the named patterns' ASCII stretches
are split by its scanners instead (``Backend.split_text`` and ``count_text``, glue in
:mod:`engine.native.scan_regions`), with the same chunks.

Example: ``PreTokenizer("gpt2").split("It's 2024!") -> ['It', "'s", ' 2024', '!']``
"""

from __future__ import annotations

import re
import signal
import threading
from collections import Counter
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from engine.errors import ConfigError, PatternError, PatternTimeoutError
from engine.text.pattern_bounds import _short, check_pattern

#: Seed 000's pattern, compiled with the standard ``re`` module exactly as the seed does.
SIMPLE_PATTERN = r" ?\w+| ?[^\w\s]+|\s+"
#: GPT-2's pattern (as in its encoder.py, minbpe and HuggingFace's ByteLevel pre-tokenizer).
GPT2_PATTERN = r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: GPT-4's cl100k_base pattern (as in tiktoken and minbpe).
GPT4_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]++[\r\n]*"""
    r"""|\s*[\r\n]|\s+(?!\S)|\s+"""
)
NAMED_PATTERNS = {"simple": SIMPLE_PATTERN, "gpt2": GPT2_PATTERN, "gpt4": GPT4_PATTERN}
_NAMED_SOURCES = frozenset(NAMED_PATTERNS.values())
#: Llama 3's pattern (its tokenizer.json's Split, Meta's tiktoken setup; also Llama 3.1-3.3).
LLAMA3_PATTERN = (
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"""
    r"""|\s*[\r\n]+|\s+(?!\S)|\s+"""
)
#: tiktoken's o200k_base pattern (GPT-4o's; Llama 4's tiktoken setup uses it too).
O200K_PATTERN = "|".join((
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
    r"""\p{N}{1,3}""",
    r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
    r"""\s*[\r\n]+""",
    r"""\s+(?!\S)""",
    r"""\s+""",
))
#: GPT-2's pattern as its encoder.py and tiktoken's gpt2 spell it (each contraction on its own).
GPT2_SPELLED_OUT = r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
#: Other spellings of a named pattern that match exactly what it matches, on any text: a custom
#: pre-tokenizer with one of them is split as the named pattern is (a piece at a time, block by
#: block, by the compiled core's scanners), and stays custom everywhere else.
#: Llama 3's is cl100k's: the contractions are the same set (the apostrophe inside or outside
#: ``(?i:)``, in an order where none is a prefix of another); ``?`` and ``+`` match as their
#: possessive twins there (giving back the optional character, or part of the run, never lets
#: what follows match); and ``\s*[\r\n]+`` ends where ``\s*[\r\n]`` does, after the last
#: newline of the whitespace run. GPT-2's spelled-out contractions are its grouped ones (no
#: contraction is a prefix of another). tests/engine/test_pretokenize_same.py checks both on
#: text. ``simple`` has no other spelling here: it is compiled with ``re``, whose ``\w`` differs.
SAME_AS = {GPT2_PATTERN: "gpt2", GPT2_SPELLED_OUT: "gpt2", GPT4_PATTERN: "gpt4", LLAMA3_PATTERN: "gpt4",
           O200K_PATTERN: "o200k"}
#: The patterns that match every character (``PreTokenizer.scan``): o200k is no named
#: pre-tokenizer, but a custom one with its pattern scans as they do.
SCAN_PATTERNS = {**NAMED_PATTERNS, "o200k": O200K_PATTERN}
#: The patterns the compiled core's scanners (``_chunk_end``) and whole-text encoder know, by
#: the number they go by there.
SCAN_MODES = {"gpt2": 0, "gpt4": 1, "o200k": 2}

#: Characters per piece when a long text is scanned a piece at a time (:func:`scan_pieces`).
_PIECE = 1 << 20
#: Matches ending this close to a piece's end are scanned again with the next piece.
_MARGIN = 4096


@cache
def _digit() -> Any:
    import regex

    return regex.compile(r"(\p{N})")


#: A custom pattern gets this long on a text of n characters before it counts as too slow:
#: ``PATTERN_SECONDS + n / PATTERN_RATE`` seconds (the named patterns run at over 5 million
#: characters a second; a pattern that backtracks catastrophically runs for years).
PATTERN_SECONDS = 1.0
PATTERN_RATE = 500_000


def compile_pattern(pattern: str, *, stdlib: bool = False) -> Any:
    """Compile a pre-tokenizer pattern; a bad pattern raises ``PatternError`` in one line, and so
    does one too large to compile in bounded time and memory (:func:`check_pattern`)."""
    if not isinstance(pattern, str) or pattern not in _NAMED_SOURCES:
        check_pattern(pattern)  # also refuses a pattern that is not text
    module: Any = re
    error: tuple[type[Exception], ...] = (re.error,)
    if not stdlib:
        import regex  # here, not at the top: importing it can cost more than scanning an ASCII corpus

        module, error = regex, (re.error, regex.error)
    try:
        return module.compile(pattern)
    except error as exc:
        raise PatternError(f"invalid pattern {_short(pattern)}: {exc}") from None
    except (OverflowError, RecursionError, MemoryError):  # e.g. a{99999999999} or (((...))) nested thousands deep
        raise PatternError(f"invalid pattern {_short(pattern)}: too large or too deeply nested") from None


def pattern_timeout(length: int) -> float:
    """Seconds a custom pattern may take on a text of ``length`` characters."""
    return PATTERN_SECONDS + length / PATTERN_RATE


def _expire(signum: int, frame: Any) -> None:
    raise TimeoutError


@contextmanager
def bounded(seconds: float) -> Iterator[dict[str, float]]:
    """The keyword arguments that bound one ``regex`` call to ``seconds``.

    The ``regex`` module's own ``timeout`` reads the clock as it goes: 10 MB of code under
    o200k's pattern took 7.6 s with it against 3.1 s without (docs/benchmarks.md). In the main
    thread, when no one else uses ``SIGALRM``, a timer bounds the call instead (``regex``
    checks for signals as it matches) and nothing is passed; elsewhere, ``timeout``."""
    usable = (hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
              and signal.getsignal(signal.SIGALRM) == signal.SIG_DFL
              and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0))
    if not usable:
        yield {"timeout": seconds}
        return
    previous = signal.signal(signal.SIGALRM, _expire)
    try:
        signal.setitimer(signal.ITIMER_REAL, seconds)
        yield {}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)  # cancelled before the default (which would end
        signal.signal(signal.SIGALRM, previous)  # the process) comes back


def too_slow(pattern: str, length: int) -> PatternTimeoutError:
    """The error for a pattern that ran out of time on a text of ``length`` characters."""
    return PatternTimeoutError(
        f"pattern {_short(pattern)} is too slow: no result after {pattern_timeout(length):.1f} s on "
        f"{length} characters (it backtracks catastrophically; simplify it)"
    )


@dataclass(frozen=True)
class PreTokenizer:
    """Splits text into chunks the way tiktoken and minbpe do: one regex over the whole text.

    Example: ``PreTokenizer("simple").split("Da sprach er:") -> ['Da', ' sprach', ' er', ':']``

    ``name`` is ``none`` (one chunk: the whole text), ``simple``, ``gpt2``, ``gpt4`` or
    ``custom`` (then ``pattern`` is the regex). ``split_digits`` makes every digit a chunk of
    its own; ``split_newlines`` makes every newline a chunk of its own (so no merge crosses it);
    ``per_line`` applies the pattern to each line (ending with its ``\n``) on its own, as
    HuggingFace's trainer does when it reads a file line by line.

    ``chain`` (a custom pattern's only) lists patterns that split the text first, each in turn:
    every piece into its matches and the text between them (HuggingFace's ``Split`` with
    ``Isolated``, llama.cpp's list of patterns); ``pattern`` then splits each piece. Example:
    ``PreTokenizer("custom", r"\\S+|\\s+", chain=(r"\\p{N}",)).split("ab12 c") -> ['ab', '1', '2', ' ', 'c']``
    """

    name: str = "gpt2"
    pattern: str | None = None
    split_digits: bool = False
    split_newlines: bool = False
    per_line: bool = False
    chain: tuple[str, ...] = ()
    #: the named pattern whose fast paths split this one's text (see SAME_AS), else the name:
    #: set by __post_init__, never compared or written
    scan: str = field(default="none", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.chain:
            if self.name != "custom" or self.per_line or not all(isinstance(p, str) and p for p in self.chain):
                raise ConfigError("a chain of patterns is given with a custom pattern, as patterns, not per line")
            object.__setattr__(self, "chain", tuple(self.chain))
            object.__setattr__(self, "_chained", tuple(compile_pattern(p) for p in self.chain))
        if self.name == "none":
            object.__setattr__(self, "_compiled", None)
            object.__setattr__(self, "scan", "none")
            return
        if self.name == "custom":
            if not self.pattern:
                raise ConfigError("the custom pre-tokenizer needs a pattern")
            source = self.pattern
        elif self.name in NAMED_PATTERNS:
            source = NAMED_PATTERNS[self.name]
        else:
            raise ConfigError(f"unknown pre-tokenizer {self.name!r}")
        object.__setattr__(self, "pattern", source)
        scan = "custom" if self.chain else SAME_AS.get(source, "custom") if self.name == "custom" else self.name
        object.__setattr__(self, "scan", scan)
        if self.name == "custom" and scan == "custom":  # a bad pattern is reported now; the named ones
            object.__setattr__(self, "_compiled", compile_pattern(source))  # (SAME_AS too) compile on first use

    def _regex(self) -> Any:
        """The compiled pattern (None for ``none``); a named one is compiled on first use (the
        compiled core's scanners may split a whole ASCII corpus without it)."""
        try:
            return self.__dict__["_compiled"]
        except KeyError:
            assert self.pattern is not None  # every pre-tokenizer but none has one, set in __post_init__
            compiled = compile_pattern(self.pattern, stdlib=self.name == "simple")
            object.__setattr__(self, "_compiled", compiled)
            return compiled

    def split(self, text: str) -> list[str]:
        """Chunks of ``text`` in order; characters the pattern does not match are dropped.

        Example: ``PreTokenizer("gpt2", split_digits=True).split("a 12") -> ['a', ' ', '1', '2']``
        """
        if self.name == "none":
            chunks = [text] if text else []
        elif self.chain:
            chunks = [piece for _, piece in self._chain_spans(text)]
        elif self.per_line:
            chunks = [c for line in _lines(text) for c in self._findall(line) if c]
        elif (found := self._split_compiled(text)) is not None:
            chunks = found
        elif self.scan in NAMED_PATTERNS:
            chunks = self._findall(text)  # they never match an empty string
        else:
            chunks = [c for c in self._findall(text) if c]
        return self._post(chunks)

    def count(self, text: str) -> Counter[str]:
        """Each distinct chunk with its count, in order of first appearance."""
        return self.split_counted(self.count_raw(text))

    def split_counted(self, raw: Counter[str]) -> Counter[str]:
        """Digit and newline splitting of counted pattern chunks.

        Runs once per distinct chunk (weighted), not per occurrence: pieces still come out in
        order of first appearance, because distinct chunks do.
        """
        if not (self.split_digits or self.split_newlines):
            return raw
        counts: Counter[str] = Counter()
        post = self._post
        for chunk, n in raw.items():
            for piece in post([chunk]):
                counts[piece] += n
        return counts

    def count_raw(self, text: str, into: Counter[str] | None = None) -> Counter[str]:
        """Chunks as the pattern alone makes them, counted (batch by batch, see batches()),
        added to ``into`` when given (new chunks after its own, in order of first appearance)."""
        counts: Counter[str] = Counter() if into is None else into
        if self._count_compiled(text, counts):
            return counts
        for batch in self.batches(text):
            counts.update(batch)  # a list: one C-level loop
        return counts

    @property
    def covers_everything(self) -> bool:
        """Whether every character of any text lands in some chunk (true of the named
        pre-tokenizers and of other spellings with fast paths; a custom pattern may skip
        characters)."""
        return self.scan == "none" or self.scan in SCAN_PATTERNS  # o200k's too: \s+ and [^\s L N]+ end it

    def batches(self, text: str) -> Iterator[list[str]]:
        """The pattern's chunks of ``text`` in order, a batch at a time (before digit and newline
        splitting; empty matches dropped).

        Large texts are scanned a piece at a time (:func:`scan_pieces`), so the list of all
        chunks (over a hundred megabytes for 10 MB of text) never exists at once. Only the named
        patterns are pieced: they match every character and look at most one character past a
        match, so a match ending well before a piece's end is exactly the match a whole-text
        scan makes there. (With the compiled core, its scanners split the ASCII stretches of
        gpt2, gpt4 and o200k text: ``Backend.split_batches``.)
        """
        if self.name == "none":
            if text:
                yield [text]
            return
        if self.per_line:
            for line in _lines(text):
                yield [c for c in self._findall(line) if c]
            return
        if self.chain:
            yield [piece for _, piece in self._chain_spans(text)]
            return
        if self.scan not in SCAN_PATTERNS:
            yield [c for c in self._findall(text) if c]
            return
        mode = self._scan_mode()
        if mode is not None:
            from engine.native import backend

            found = backend().split_batches(text, mode, self._pieces)  # the compiled core's scanners
            if found is not None:
                yield from found
                return
        yield from self._pieces(text, 0, len(text))

    def _pieces(self, text: str, start: int, stop: int) -> Iterator[list[str]]:
        """:func:`scan_pieces` with this pre-tokenizer's pattern (compiled at the first call)."""
        return scan_pieces(self._regex(), text, start, stop)

    def _scan_mode(self) -> int | None:
        """The compiled core's number for this pattern (:data:`SCAN_MODES`), or None."""
        return None if self.per_line else SCAN_MODES.get(self.scan)

    def _count_compiled(self, text: str, counts: Counter[str]) -> bool:
        """Count the pattern's chunks of ``text`` into ``counts`` with the compiled core's
        scanners (``Backend.count_text``: no string made per occurrence, only per distinct
        chunk); False, nothing counted, on the pure path, for a short text or another pattern."""
        mode = self._scan_mode()
        if mode is None:
            return False
        from engine.native import backend  # here: the door imports the engine's hot loops

        return backend().count_text(counts, text, mode, self._pieces)

    def _split_compiled(self, text: str) -> list[str] | None:
        """The pattern's chunks of ``text`` by the compiled core's scanners
        (``Backend.split_text``: one string per distinct chunk, shared by its occurrences);
        None on the pure path, for a short text or another pattern."""
        mode = self._scan_mode()
        if mode is None:
            return None
        from engine.native import backend

        return backend().split_text(text, mode, self._pieces)

    def positioned(self, text: str) -> Iterator[tuple[int, str]]:
        """(character offset, chunk) for every chunk, after digit and newline splitting."""
        post = self._post
        if self.chain:
            for pos, chunk in self._chain_spans(text):
                for piece in post([chunk]):
                    yield pos, piece
                    pos += len(piece)
            return
        if self.covers_everything:
            pos = 0
            for batch in self.batches(text):
                for piece in post(batch):
                    yield pos, piece
                    pos += len(piece)
            return
        try:
            for match in self._regex().finditer(text, timeout=pattern_timeout(len(text))):
                pos = match.start()
                for piece in post([match.group(0)]):
                    yield pos, piece
                    pos += len(piece)
        except TimeoutError:
            raise too_slow(self.pattern or "", len(text)) from None

    def _chain_spans(self, text: str) -> list[tuple[int, str]]:
        """(offset, chunk) of ``text`` split by :attr:`chain` in turn, then by the pattern, each
        pattern bounded in time as a custom pattern is."""
        pieces = [(0, text)] if text else []
        try:
            with bounded(pattern_timeout(len(text))) as bound:
                for splitter in self.__dict__["_chained"]:
                    out = []
                    for start, piece in pieces:
                        pos = 0
                        for match in splitter.finditer(piece, **bound):
                            a, b = match.span()
                            if a == b:
                                continue
                            if a > pos:
                                out.append((start + pos, piece[pos:a]))
                            out.append((start + a, piece[a:b]))
                            pos = b
                        if pos < len(piece):
                            out.append((start + pos, piece[pos:]))
                    pieces = out
                compiled = self._regex()
                return [(start + m.start(), m.group(0)) for start, piece in pieces
                        for m in compiled.finditer(piece, **bound) if m.end() > m.start()]
        except TimeoutError:
            raise too_slow(" then ".join((*self.chain, self.pattern or "")), len(text)) from None

    def _findall(self, text: str) -> list[str]:
        """The pattern's matches in ``text`` (a custom pattern's bounded in time)."""
        if self.scan != "custom":
            return self._regex().findall(text)
        compiled = self._regex()
        try:  # a custom pattern may backtrack catastrophically: bound its time
            with bounded(pattern_timeout(len(text))) as bound:
                if compiled.groups:  # findall would give the groups (one group: its text alone)
                    chunks = [m.group(0) for m in compiled.finditer(text, **bound)]
                else:
                    chunks = compiled.findall(text, **bound)
        except TimeoutError:
            raise too_slow(self.pattern or "", len(text)) from None
        return chunks

    def _post(self, chunks: list[str]) -> list[str]:
        """Digit and newline splitting, applied after the pattern."""
        if self.split_digits:
            digit = _digit()
            chunks = _split_each(chunks, digit.split, has=digit.search)
        if self.split_newlines:
            chunks = _split_each(chunks, _split_newline, has=_has_newline)
        return chunks

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description (the pattern is written out in full)."""
        data: dict[str, Any] = {
            "name": self.name,
            "pattern": self.pattern,
            "split_digits": self.split_digits,
            "split_newlines": self.split_newlines,
        }
        if self.per_line:
            data["per_line"] = True
        if self.chain:
            data["chain"] = list(self.chain)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> PreTokenizer:
        """Inverse of :meth:`to_dict`."""
        name = data.get("name", "gpt2")
        pattern = data.get("pattern") if name == "custom" else None
        return cls(
            name=name,
            pattern=pattern,
            split_digits=bool(data.get("split_digits", False)),
            split_newlines=bool(data.get("split_newlines", False)),
            per_line=bool(data.get("per_line", False)),
            chain=tuple(data.get("chain") or ()),
        )


def add_counts(into: Counter[str], part: Mapping[str, int]) -> None:
    """Add counted chunks (``part``, a table counted apart: a block of a corpus) into ``into``,
    as ``into.update(part)`` does (a new chunk after the others, in ``part``'s order); on the
    compiled path in C, where Counter.update adds a mapping in a Python loop."""
    from engine.native import backend

    backend().add_counts(into, part)


def _split_newline(chunk: str) -> list[str]:
    """Example: ``_split_newline("a\\n\\nb") -> ['a', '\\n', '', '\\n', 'b']`` (empties dropped later)."""
    parts = chunk.split("\n")
    out = [parts[0]]
    for part in parts[1:]:
        out.append("\n")
        out.append(part)
    return out


def _lines(text: str) -> list[str]:
    """Lines split at ``\n`` only, each keeping it. Example: ``_lines("a\r\nb") -> ['a\r\n', 'b']``"""
    lines = text.split("\n")
    last = lines.pop()
    out = [line + "\n" for line in lines]
    if last:
        out.append(last)
    return out


def _has_newline(chunk: str) -> bool:
    return "\n" in chunk


def _split_each(chunks: list[str], splitter: Any, *, has: Any) -> list[str]:
    """Apply ``splitter`` to the chunks for which ``has(chunk)`` holds, dropping empty pieces."""
    out: list[str] = []
    for chunk in chunks:
        if not has(chunk):
            out.append(chunk)
            continue
        out.extend(piece for piece in splitter(chunk) if piece)
    return out


def scan_pieces(compiled: Any, text: str, start: int, stop: int) -> Iterator[list[str]]:
    """A named pattern's chunks of ``text[start:stop]`` (scanned as if the text ended at
    ``stop``), a batch at a time: a long stretch is scanned a piece of :data:`_PIECE`
    characters at a time, so the list of all its chunks never exists at once.

    The named patterns match every character, and to choose a match they look past it at most
    one character or as far as the next match goes (o200k: ``ʰ`` before ``HTTP``, cut before an
    ``s``, is a chunk of its own; with the ``s`` it starts ``ʰHTTPServer``). So of a piece's
    matches, those followed by another that ends well before the piece's end (:data:`_MARGIN`)
    are exactly the matches a whole scan makes there; the next piece starts after them.

    Example: ``[c for b in scan_pieces(regex.compile(GPT2_PATTERN), "a b", 0, 3) for c in b] -> ['a', ' b']``
    """
    if stop - start <= 2 * _PIECE:
        yield compiled.findall(text, start, stop)  # the named patterns never match an empty string
        return
    pos = start
    while pos < stop:
        end = pos + _PIECE
        if end >= stop:
            yield compiled.findall(text, pos, stop)
            return
        chunks = compiled.findall(text, pos, end)
        if sum(map(len, chunks)) != end - pos:  # pragma: no cover - named patterns cover all
            yield compiled.findall(text, pos, stop)
            return
        reach = end - pos
        keep = len(chunks)
        while keep and reach > _PIECE - _MARGIN:  # drop the matches near the piece's end
            keep -= 1
            reach -= len(chunks[keep])
        if keep:  # and the match before the first dropped: it may have looked as far as that one went
            keep -= 1
            reach -= len(chunks[keep])
        if keep == 0:  # one match spans the whole piece: finish in one go
            yield compiled.findall(text, pos, stop)
            return
        del chunks[keep:]
        yield chunks
        pos += reach


#: Patterns a tokenizer file that holds none may be read with by name (``--pattern-name``),
#: besides the named pre-tokenizers: custom patterns, spelled as the files' own libraries do.
#: Qwen's (its tiktoken rank file's tokenizer: Llama 3's with one digit a chunk).
QWEN_PATTERN = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+"
                r"|\s+(?!\S)|\s+")
FILE_PATTERNS = {"llama3": LLAMA3_PATTERN, "o200k": O200K_PATTERN, "qwen": QWEN_PATTERN}


def pretokenizer_named(name: str) -> PreTokenizer:
    """``none``, a named pre-tokenizer, or a custom one with a pattern of :data:`FILE_PATTERNS`.

    Example: ``pretokenizer_named("o200k").scan -> 'o200k'``"""
    if name in FILE_PATTERNS:
        return PreTokenizer("custom", FILE_PATTERNS[name])
    return PreTokenizer(name)


def pretokenizer_for(config: Any) -> PreTokenizer:
    """The pre-tokenizer a :class:`~engine.config.TrainConfig` describes."""
    return PreTokenizer(
        name=config.pretokenizer,
        pattern=config.pattern,
        split_digits=config.split_digits,
        split_newlines=config.no_merge_newline,
        per_line=config.tie_rule == "hf",
    )
