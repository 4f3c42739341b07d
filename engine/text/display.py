"""How tokens are shown, in the CLI and the app alike (seed 002's merge-log conventions).

A token whose bytes are complete UTF-8 shows as its text with visible whitespace (``↵`` for a
newline); a token that cuts a character shows the whole characters it holds as text and only the
cut bytes in brackets: ``，[e5]``, or ``[e4 b8]`` when it holds no whole character (seed 002's
all-bytes form, ``[ef bc 8c e5]``, is ``token_display(..., seed=True)``). Raw control characters
never reach the terminal.

A token that is, starts or ends with a code point that draws nothing (a zero-width joiner, a
variation selector, a direction mark) shows it by name, ``⟨ZWJ⟩``, and one that starts with a
combining mark shows the mark on a dotted circle, ``◌́``: the emoji sample's tokens would otherwise
look blank or join the next one. Inside a token they stay as they are, where they draw as part of
the characters around them.
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


#: Short names of the code points that draw nothing, as Unicode's own abbreviations.
INVISIBLE_NAMES = {
    0x00AD: "SHY", 0x034F: "CGJ", 0x061C: "ALM", 0x115F: "HCF", 0x1160: "HJF", 0x180E: "MVS",
    0x200B: "ZWSP", 0x200C: "ZWNJ", 0x200D: "ZWJ", 0x200E: "LRM", 0x200F: "RLM",
    0x202A: "LRE", 0x202B: "RLE", 0x202C: "PDF", 0x202D: "LRO", 0x202E: "RLO",
    0x2060: "WJ", 0x2061: "FA", 0x2062: "IT", 0x2063: "IS", 0x2064: "IP",
    0x2066: "LRI", 0x2067: "RLI", 0x2068: "FSI", 0x2069: "PDI", 0x3164: "HF", 0xFEFF: "BOM",
}


def invisible_name(ch: str) -> str | None:
    """The name a code point that draws nothing is shown by (``⟨ZWJ⟩``), else None.

    Example: ``invisible_name("\u200d") -> 'ZWJ'``; ``invisible_name("\ufe0f") -> 'VS16'``;
    ``invisible_name("a") -> None``
    """
    code = ord(ch)
    if code in INVISIBLE_NAMES:
        return INVISIBLE_NAMES[code]
    if 0xFE00 <= code <= 0xFE0F:
        return f"VS{code - 0xFE00 + 1}"
    if 0xE0100 <= code <= 0xE01EF:
        return f"VS{code - 0xE0100 + 17}"
    if unicodedata.category(ch) == "Cf":
        return f"U+{code:04X}"
    return None


def _is_combining(ch: str) -> bool:
    return unicodedata.category(ch) in ("Mn", "Mc", "Me")


def mark_edges(text: str) -> str:
    """``text`` with code points that draw nothing named at its start and end, and a combining
    mark at its start set on a dotted circle (see the module's note); the middle is untouched.

    Example: ``mark_edges("\u0301") -> '◌\u0301'``; ``mark_edges("👩\u200d") -> '👩⟨ZWJ⟩'``;
    ``mark_edges("e\u0301") -> 'e\u0301'``
    """
    if not text or (invisible_name(text[0]) is None and invisible_name(text[-1]) is None and not _is_combining(text[0])):
        return text
    head: list[str] = []
    start = 0
    while start < len(text) and (name := invisible_name(text[start])) is not None:
        head.append(f"⟨{name}⟩")
        start += 1
    tail: list[str] = []
    end = len(text)
    while end > start and (name := invisible_name(text[end - 1])) is not None:
        tail.append(f"⟨{name}⟩")
        end -= 1
    middle = text[start:end]
    if middle and _is_combining(middle[0]):
        middle = "◌" + middle
    return "".join(head) + middle + "".join(reversed(tail))


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
    return visible_text(mark_edges(text), space=space)


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
        if parts and not parts[-1].startswith("["):
            parts[-1] += ch
        else:
            parts.append(ch)
    if loose:
        parts.append(hex_bytes(bytes(loose)))
    # a run of whole characters between cut bytes is a token's edge too: nothing joins across []
    return "".join(p if p.startswith("[") else visible_text(mark_edges(p), space=space) for p in parts)
