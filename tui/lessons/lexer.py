"""Splitting a lesson's directive lines into words, as ``shlex`` would, but in linear time.

Below the parser (:mod:`tui.lessons.format` imports it): no lesson types here.

Example: ``split_words('a "b c"d')`` -> ``[('a', 2), ('b cd', 8)]``
"""

from __future__ import annotations

import re

from tui.i18n import _

_TOKEN_ID = re.compile(r"#\d+(\s|$)")
#: What the lexer reads as shlex's whitespace (posix mode: space, tab, CR, LF).
_SPACE = " \t\r\n"
_PLAIN = re.compile(r"[^ \t\r\n'\"\\]+")
_DOUBLE_STOP = re.compile(r'["\\]')
_COMMENT_STOP = re.compile(r"""[\\'"#]""")
_QUOTING = re.compile(r"""[\\'"]""")
_WORD = re.compile(r"[^ \t\r\n]+")


def strip_comment(line: str) -> str:
    """The line up to a ``#`` comment: a ``#`` outside quotes that starts a word, unless the word
    is a token id (``#12``, the find syntax). Linear: it jumps from one quote, backslash or
    ``#`` to the next."""
    if "#" not in line:
        return line
    i = 0
    while True:
        stop = _COMMENT_STOP.search(line, i)
        if stop is None:
            return line
        at = stop.start()
        ch = line[at]
        if ch == "#":
            if (at == 0 or line[at - 1].isspace()) and not _TOKEN_ID.match(line, at):
                return line[:at]
            i = at + 1
        elif ch == "\\":
            i = at + 2
        elif ch == "'":
            close = line.find("'", at + 1)
            if close < 0:
                return line
            i = close + 1
        else:  # a double quote: a backslash in it escapes the next character
            i = at + 1
            while True:
                inner = _DOUBLE_STOP.search(line, i)
                if inner is None:
                    return line
                if line[inner.start()] == '"':
                    i = inner.end()
                    break
                i = inner.start() + 2


def words(line: str) -> list[tuple[str, str, int]]:
    """The line's words as shlex reads them, each with its raw text and where it ends.

    Example: ``words('tokenize "a b"')`` -> ``[('tokenize', 'tokenize', 9), ('a b', '"a b"', 14)]``
    """
    out = []
    start = 0
    for word, end in split_words(line):
        out.append((word, line[start:end].strip(), end))
        start = end
    return out


def split_words(line: str) -> list[tuple[str, int]]:
    """The words ``shlex`` (posix, whitespace_split, no comments) reads from ``line``, each with
    the offset just past it and the blank that ends it, as ``shlex``'s stream would tell; the same
    ValueError on an open quote or a trailing backslash. Linear: ``shlex`` adds one character at
    a time to its token, which is quadratic on a long word.

    Example: ``split_words('a "b c"d')`` -> ``[('a', 2), ('b cd', 8)]``
    """
    n = len(line)
    if _QUOTING.search(line) is None:  # no quotes, no backslashes: the words between blanks
        return [(word.group(), min(word.end() + 1, n)) for word in _WORD.finditer(line)]
    out: list[tuple[str, int]] = []
    i = 0
    while True:
        while i < n and line[i] in _SPACE:
            i += 1
        if i >= n:
            return out
        parts: list[str] = []
        while i < n and line[i] not in _SPACE:
            ch = line[i]
            if ch == "'":
                close = line.find("'", i + 1)
                if close < 0:
                    raise ValueError(_("No closing quotation"))
                parts.append(line[i + 1:close])
                i = close + 1
            elif ch == '"':
                i += 1
                while True:
                    stop = _DOUBLE_STOP.search(line, i)
                    if stop is None:
                        raise ValueError(_("No closing quotation"))
                    at = stop.start()
                    parts.append(line[i:at])
                    if line[at] == '"':
                        i = at + 1
                        break
                    if at + 1 >= n:
                        raise ValueError(_("No escaped character"))
                    escaped = line[at + 1]
                    parts.append(escaped if escaped in '"\\' else "\\" + escaped)
                    i = at + 2
            elif ch == "\\":
                if i + 1 >= n:
                    raise ValueError(_("No escaped character"))
                parts.append(line[i + 1])
                i += 2
            else:
                plain = _PLAIN.match(line, i)
                assert plain is not None
                parts.append(plain.group())
                i = plain.end()
        end = min(i + 1, n)  # shlex has read the blank that ends the word
        out.append(("".join(parts), end))
        i = end
