"""The page ``bpe-lab serve`` hands a browser, with no request to any host but the server.

textual-serve's page template links a web font from the internet. In an offline classroom every
tab waits on that request before it gives up and falls back silently. The page served here is
textual-serve's own template, read from the installed package (so it follows its upgrades), less
every stylesheet fetched from another host, with the Roboto Mono font that textual-serve ships in
its static folder declared instead.
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
      }
      @font-face {
        font-family: "Roboto Mono";
        src: url("{{ config.static.url }}fonts/RobotoMono-Italic-VariableFont_wght.ttf") format("truetype");
        font-weight: 100 700;
        font-style: italic;
      }
    </style>
"""


def offline_page(template: str) -> str:
    """textual-serve's page template without remote stylesheets, with the bundled fonts declared.

    Example: ``offline_page('<head><link href="https://x/y.css" /></head>')`` keeps no ``https://x``.
    """
    page = REMOTE_LINK.sub("", template)
    return page.replace("</head>", FONT_FACES + "  </head>", 1)


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
