"""How tokens are shown, in the CLI and the app alike (seed 002's merge-log conventions).

A token whose bytes are complete UTF-8 shows as its text with visible whitespace (``↵`` for a
newline); a token that cuts a character shows the whole characters it holds as text and only the
cut bytes in brackets: ``，[e5]``, or ``[e4 b8]`` when it holds no whole character (seed 002's
all-bytes form, ``[ef bc 8c e5]``, is ``token_display(..., seed=True)``). Raw control characters
never reach the terminal.
"""

from __future__ import annotations

import re
import unicodedata

#: Whitespace and control characters made visible.
VISIBLE = {
    "\n": "↵",
    "\r": "␍",
    "\t": "⇥",
    "\x0b": "␋",
    "\x0c": "␌",
    "\x85": "␤",
    "\u2028": "␤",
    "\u2029": "¶",
}


def hex_bytes(data: bytes) -> str:
    """Example: ``hex_bytes(b"\\xe4\\xb8") -> '[e4 b8]'``"""
    return "[" + " ".join(f"{b:02x}" for b in data) + "]"


def is_complete_utf8(data: bytes) -> bool:
    """Whether ``data`` decodes as UTF-8 on its own (whole characters only)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _visible_char(ch: str, space: str) -> str:
    if ch == " ":
        return space
    if ch in VISIBLE:
        return VISIBLE[ch]
    if unicodedata.category(ch) in ("Cc", "Cs"):
        code = ord(ch)
        if code < 0x20:
            return chr(0x2400 + code)  # the Control Pictures block: ␀ ␁ ...
        if code == 0x7F:
            return "␡"
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return ch


def visible_text(text: str, *, space: str = " ") -> str:
    """``text`` with newlines, tabs and control characters made visible.

    Example: ``visible_text("a\\tb\\n", space="·") -> 'a⇥b↵'``; ``visible_text(" x", space="·") -> '·x'``
    """
    if text.isprintable() and " " not in text:
        return text
    return "".join(_visible_char(ch, space) for ch in text)


#: Control characters (C0 but tab and newline, DEL, C1) and lone surrogates: what :func:`inert`
#: replaces. One search over the text, so clean text costs one scan.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def inert(text: str) -> str:
    """``text`` safe to print on a terminal or show in a browser's terminal: every control
    character but tab and newline shown as the corpus pane shows it (``ESC`` -> ``␛``, ``\\r`` ->
    ``␍``, C1 ``\\x9b`` -> ``\\x9b``, a lone surrogate -> ``\\udcff``), so an escape sequence from a
    file (a window title, OSC 52's clipboard write, clearing the screen) stays text. Unchanged
    when there is none (the same object).

    Example: ``inert("a\\x1b]0;pwned\\x07 b\\n")`` -> ``'a␛]0;pwned␇ b\\n'``
    """
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: _visible_char(m.group(), " "), text)


def token_display(data: bytes, *, space: str = " ", seed: bool = False) -> str:
    """A token for people: its text when complete UTF-8; otherwise the whole characters it holds
    as text and only the bytes of cut characters in brackets (``seed=True``: seed 002's form,
    every byte in brackets, as its merge logs print them).

    Example: ``token_display("。\\n".encode()) -> '。↵'``; ``token_display(b"\\xe4\\xb8") -> '[e4 b8]'``;
    ``token_display("，".encode() + b"\\xe5") -> '，[e5]'`` (seed form: ``'[ef bc 8c e5]'``)
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return hex_bytes(data) if seed else _mixed(data, space)
    if not text:
        return "[]"
    return visible_text(text, space=space)


def _mixed(data: bytes, space: str) -> str:
    """Whole characters as text, each run of bytes that are no whole character as ``[hex]``."""
    parts: list[str] = []
    loose: list[int] = []
    for ch in data.decode("utf-8", "surrogateescape"):
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # a byte that is not part of a whole character
            loose.append(code - 0xDC00)
            continue
        if loose:
            parts.append(hex_bytes(bytes(loose)))
            loose = []
        parts.append(visible_text(ch, space=space))
    if loose:
        parts.append(hex_bytes(bytes(loose)))
    return "".join(parts)
