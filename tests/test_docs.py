"""The README stays short and its pages are reachable: every relative link in README.md and docs/
names a file that exists and, with a #fragment, a heading of that file (GitHub's anchors)."""

from __future__ import annotations

import re
import unicodedata

import pytest
from helpers import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, code marks and punctuation dropped, spaces to -."""
    text = heading.strip().lower()
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {anchor(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def links(path) -> list[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return [target for target in LINK.findall(text) if not re.match(r"[a-z]+:", target)]


def test_anchor_follows_github():
    assert anchor("The app in a browser: `bpe-lab serve`") == "the-app-in-a-browser-bpe-lab-serve"
    assert anchor("Counting at scale: chunk-count tables") == "counting-at-scale-chunk-count-tables"
    assert anchor("Sessions: nothing is lost") == "sessions-nothing-is-lost"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    assert links(ROOT / "README.md")  # the scan sees the links
    broken = []
    for target in links(page):
        name, _, fragment = target.partition("#")
        path = (page.parent / name).resolve() if name else page
        where = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif fragment and path.suffix == ".md" and fragment not in anchors(path):
            broken.append(f"{target}: no heading #{fragment} in {where}")
    assert not broken, f"{page.relative_to(ROOT)}:\n" + "\n".join(broken)


def test_the_readme_is_short_and_links_every_page():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    for page in (ROOT / "docs").glob("*.md"):
        assert f"docs/{page.name}" in readme, page.name
    for marker in ("<!-- main-command -->", "<!-- test-command -->", "<!-- keys:"):
        assert marker in readme



def test_every_public_engine_name_is_documented():
    """docs/engine.md names each of ``engine.__all__`` in backticks (issue 38)."""
    import engine

    text = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `")]  # the table of names
    spans = " ".join(span for row in rows for span in re.findall(r"`([^`]+)`", row.split(" | ")[0]))
    missing = [name for name in engine.__all__ if not re.search(rf"\b{re.escape(name)}\b", spans)]
    assert not missing
