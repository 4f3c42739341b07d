"""The size checks of a pre-tokenizer pattern, before it is compiled: a pattern too long, or one
whose counted repeats the ``regex`` module would expand to gigabytes, is refused in one line
(:func:`check_pattern`; :func:`engine.text.pretokenize.compile_pattern` calls it)."""

from __future__ import annotations

import re

from engine.errors import PatternError

#: A custom pattern may be at most this many characters long: the ``regex`` module's compile
#: time grows with its length (this many: under half a second, docs/benchmarks.md). The named patterns
#: are under 200 characters, and so are tiktoken's o200k and the Llama 3 and Qwen 2 patterns.
MAX_PATTERN_CHARS = 10_000
#: ... and at most this long written out, every counted repeat (``{m}``, ``{m,n}``, ``{m,}``) as
#: that many copies of what it repeats, nested repeats multiplied: the ``regex`` module expands
#: counted repeats when it compiles (``a{1000000000}`` needs gigabytes; this many compiles in
#: a fraction of a second, docs/benchmarks.md). ``*``, ``+`` and ``?`` count once. Real patterns repeat a few times at most
#: (``\p{N}{1,3}``: 3).
MAX_PATTERN_SIZE = 100_000

#: The syntax the size check tells apart: escapes (a ``\p{...}``-style escape whole), character
#: classes (up to the first unescaped ``]``, a leading one literal), comments, parentheses,
#: counted repeats (spaces allowed, as in verbose mode), runs of other characters and any other character.
_PATTERN_SYNTAX = re.compile(
    r"""(?P<escape>\\(?:[pPNxug]\{[^}]*\}?|.))"""
    r"""|(?P<cls>\[\^?\]?(?:\\.|[^\]\\])*\]?)"""
    r"""|(?P<comment>\(\?\#[^)]*\)?)"""
    r"""|(?P<open>\()|(?P<close>\))"""
    r"""|(?P<count>\{\s*(?P<low>\d*)\s*(?:,\s*(?P<high>\d*)\s*)?\})"""
    r"""|(?P<run>[^\\\[\](){]+)|(?P<other>.)""",
    re.S,
)
#: A counted repeat wherever it is (also inside what the scan takes for a class or a comment).
_ANY_COUNT = re.compile(r"(?<!\\)(?:\\\\)*\{\s*(\d*)\s*(?:,\s*(\d*)\s*)?\}")
#: An inline flag group that turns on verbose mode (``(?x)``, ``(?ix:``): then ``#`` starts a
#: comment and whitespace is ignored, which the scan does not model.
_VERBOSE = re.compile(r"\(\?[a-zA-Z^-]*x")
_ESCAPED = re.compile(r"\\.", re.S)
_HUGE = 10**18  # counts and sizes are capped here (regex refuses counts above 2**32 anyway)


def _count(low: str, high: str | None) -> int | None:
    """How many copies a counted repeat stands for (the larger bound), None when it is not one."""
    digits = [d.lstrip("0") or "0" for d in (low, high) if d]
    if not digits:
        return None  # ``{}`` or ``{,}``: not a counted repeat (``{,}`` is ``*``)
    return max(_HUGE if len(d) > 18 else int(d) for d in digits)


def pattern_size(pattern: str) -> int:
    """The pattern's length written out: each counted repeat as that many copies of what it
    repeats, nested repeats multiplied (``(ab){3}c`` -> 13, ``(a{10}){10}`` -> 120).

    A cheap scan of the text, never a compile (microseconds for real patterns). When the scan
    cannot be sure which repeats nest (verbose mode, unbalanced parentheses as it reads them, a
    counted repeat inside what it takes for an escape, a class or a comment, a set inside a
    set), it assumes every repeat
    nests in every other: the length times the product of all counts. It may overestimate a
    strange pattern, never underestimate one.
    """
    frames = [[0, 0]]  # per open group: [size so far, size of its last item]
    sure = _VERBOSE.search(pattern) is None
    for match in _PATTERN_SYNTAX.finditer(pattern):
        kind = match.lastgroup
        frame = frames[-1]
        if kind == "count":
            text = match[0]
            times = _count(match["low"], match["high"])
            if times is None:
                frame[0] += len(text)
                frame[1] = len(text)
                continue
            frame[0] = min(frame[0] + frame[1] * (times - 1), _HUGE)
            frame[1] = min(frame[1] * times, _HUGE)
            if not frame[1] or "".join(text.split()) != text:  # with nothing before it, or spaces
                frame[0] += len(text)  # in it, regex may read it as text: count it both ways
                frame[1] = max(frame[1], 1)
        elif kind == "open":
            frames.append([1, 0])
        elif kind == "close":
            if len(frames) == 1:
                sure = False
                frame[0] += 1
                continue
            frames.pop()
            group = frame[0] + 1
            parent = frames[-1]
            parent[0] = min(parent[0] + group, _HUGE)
            parent[1] = group
        else:
            if kind in ("escape", "cls", "comment") and _ANY_COUNT.search(match[0]):
                sure = False
            elif kind == "cls" and "[" in _ESCAPED.sub("", match[0][1:]):
                sure = False  # a set in a set (regex's V1): the scan may end the class too early
            frame[0] += len(match[0])
            if kind == "run":
                frame[1] = 1  # a repeat after literal text repeats its last character
            elif kind != "comment":
                frame[1] = len(match[0])
    if sure and len(frames) == 1:
        return frames[0][0]
    product = 1
    for low, high in _ANY_COUNT.findall(pattern):
        product = min(product * (_count(low, high) or 1), _HUGE)
    return min(len(pattern) * product, _HUGE)


def check_pattern(pattern: str) -> None:
    """Refuse, in one line (``PatternError``), a pattern too large to compile in bounded time and
    memory: longer than :data:`MAX_PATTERN_CHARS`, or larger than :data:`MAX_PATTERN_SIZE`
    written out (see :func:`pattern_size`). Every custom pattern passes here before it is
    compiled, whichever way it arrives; the named patterns need not."""
    if not isinstance(pattern, str):
        raise PatternError(f"a pattern must be text, not {type(pattern).__name__}")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise PatternError(
            f"pattern {_short(pattern)} is too long: {len(pattern)} characters (at most {MAX_PATTERN_CHARS})"
        )
    if "{" not in pattern or not any(low or high for low, high in _ANY_COUNT.findall(pattern)):
        return  # no counted repeat anywhere (\p{L} is none): written out, it is as long as it is
    size = pattern_size(pattern)
    if size > MAX_PATTERN_SIZE:
        amount = f"more than {_HUGE}" if size >= _HUGE else str(size)
        raise PatternError(
            f"pattern {_short(pattern)} is too large: written out, its repeats make it {amount} characters long "
            f"(at most {MAX_PATTERN_SIZE}; nested repeats multiply)"
        )


def _short(pattern: str) -> str:
    text = repr(pattern)
    return text if len(text) <= 60 else text[:57] + "..."
