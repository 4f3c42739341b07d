"""The page ``bpe-lab serve`` hands a browser, with no request to any host but the server.

textual-serve's page template links a web font from the internet. In an offline classroom every
tab waits on that request before it gives up and falls back silently. The page served here is
textual-serve's own template, read from the installed package (so it follows its upgrades), less
every stylesheet fetched from another host, with the Roboto Mono font that textual-serve ships in
its static folder declared instead, and a fallback stack of CJK and emoji fonts the participant's
machine may have (``local()`` only) for the characters Roboto Mono lacks.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path

#: The template textual-serve renders for the page (``templates_path`` of its Server).
TEMPLATE = "app_index.html"
#: A ``<link>`` to a stylesheet on another host.
REMOTE_LINK = re.compile(r"<link\b[^>]*\bhref\s*=\s*[\"']?(?:https?:)?//[^>]*>\s*", re.IGNORECASE)
#: Hosts a page may name without fetching them: XML namespaces are names, not requests.
NAMESPACES = ("http://www.w3.org/",)
#: The fonts textual-serve ships in its static folder, declared for the page's "Roboto Mono".
FONT_FACES = """    <style>
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-VariableFont_wght.ttf") format("truetype");
        font-weight: 100 700;
        font-style: normal;
        unicode-range: {roboto};
      }
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype");
        font-weight: 100 700;
        font-style: italic;
        unicode-range: {roboto};
      }
{fallbacks}    </style>
    <script>
      // The terminal draws on a canvas, which never asks for a font face: load them all now
      // (a face whose local() font is not installed fails, and is skipped).
      if (document.fonts) document.fonts.forEach(face => face.load().catch(() => {}));
    </script>
"""
#: Characters Roboto Mono lacks, drawn by a font already on the participant's machine (``local()``:
#: nothing is fetched): CJK (Chinese, Japanese, Korean: ideographs, kana, hangul, CJK and
#: full-width punctuation) and emoji (the pictographs, not the symbols the app draws: ✓ ✗ ↵).
#: The terminal's font is "Roboto Mono" (textual-serve's script names it), so these faces join
#: that family for their ranges only, and the Roboto faces cover every other character (a
#: browser asks only the faces whose range holds a character); a font not installed is skipped.
FALLBACKS = (
    ("U+1100-11FF, U+2E80-2FDF, U+3000-303F, U+3040-30FF, U+3100-312F, U+3130-318F, U+31A0-31FF, "
     "U+3200-33FF, U+3400-4DBF, U+4E00-9FFF, U+A960-A97F, U+AC00-D7FF, U+F900-FAFF, U+FE30-FE4F, "
     "U+FF00-FFEF, U+20000-2FA1F",
     ("Noto Sans Mono CJK SC", "Noto Sans CJK SC", "Source Han Sans SC", "Sarasa Mono SC", "PingFang SC",
      "Hiragino Sans GB", "Microsoft YaHei", "Microsoft YaHei UI", "SimHei", "WenQuanYi Micro Hei",
      "WenQuanYi Zen Hei", "Noto Sans CJK JP", "Noto Sans CJK KR", "Malgun Gothic", "Meiryo")),
    ("U+200D, U+FE0F, U+1F000-1FAFF, U+E0020-E007F",
     ("Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", "Twemoji Mozilla", "EmojiOne Color")),
)


#: One fallback's ``@font-face`` rule.
FALLBACK_FACE = """      @font-face {{
        font-family: "Roboto Mono";
        src: {sources};
        unicode-range: {ranges};
      }}
"""


def ranges_of(text: str) -> list[tuple[int, int]]:
    """``"U+41-5A, U+FE0F"`` -> ``[(0x41, 0x5A), (0xFE0F, 0xFE0F)]``."""
    spans = []
    for part in text.split(","):
        low, _, high = part.strip().removeprefix("U+").partition("-")
        spans.append((int(low, 16), int(high or low, 16)))
    return spans


def roboto_range() -> str:
    """Every code point but the fallbacks' ranges, as a ``unicode-range``."""
    taken = sorted(span for ranges, _families in FALLBACKS for span in ranges_of(ranges))
    free, start = [], 0
    for low, high in taken:
        if low > start:
            free.append((start, low - 1))
        start = max(start, high + 1)
    free.append((start, 0x10FFFF))
    return ", ".join(f"U+{low:X}" if low == high else f"U+{low:X}-{high:X}" for low, high in free)


def fallback_faces() -> str:
    """The ``@font-face`` rules of :data:`FALLBACKS`, one per range: ``local()`` sources only."""
    return "".join(FALLBACK_FACE.format(sources=", ".join(f'local("{family}")' for family in families), ranges=ranges)
                   for ranges, families in FALLBACKS)


def offline_page(template: str) -> str:
    """textual-serve's page template without remote stylesheets, with the bundled fonts declared.

    Example: ``offline_page('<head><link href="https://x/y.css" /></head>')`` keeps no ``https://x``.
    """
    page = REMOTE_LINK.sub("", template)
    faces = FONT_FACES.replace("{fallbacks}", fallback_faces()).replace("{roboto}", roboto_range())
    return page.replace("</head>", faces + "  </head>", 1)


def remote_hosts(page: str) -> list[str]:
    """The other hosts a page would fetch from (``http(s)://`` URLs that are not XML namespaces)."""
    return [url for url in re.findall(r"(?:https?:)?//[\w.-]+[^\s\"'<>)]*", page)
            if not url.startswith(NAMESPACES) and not url.startswith("//{{")]


def offline_templates() -> Path:
    """A folder holding the offline page, for textual-serve's ``templates_path`` (absolute)."""
    import textual_serve

    source = Path(textual_serve.__file__).resolve().parent / "templates" / TEMPLATE
    folder = Path(tempfile.mkdtemp(prefix="bpe-lab-page-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    (folder / TEMPLATE).write_text(offline_page(source.read_text(encoding="utf-8")), encoding="utf-8")
    return folder
