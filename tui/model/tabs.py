"""The analysis screen's tabs, listed once (no textual): their ids, titles and palette entries.

The analysis screen (tui/app/screens/analysis.py) makes one tab per entry, in this order (keys
1-6); the palette and the help (tui/app/keys.py) list them from here, and a lesson's ``analysis
TAB`` directive (tui/lessons/format.py) accepts these ids.
"""

from __future__ import annotations

from dataclasses import dataclass

from tui.i18n import N_


@dataclass(frozen=True)
class Tab:
    """One tab: ``id`` (what lessons and ``app.analysis('ID')`` name), its title on the tab, and
    the palette's title and help for it."""

    id: str
    title: str
    command: str
    help: str


TABS: tuple[Tab, ...] = (
    Tab("curve", N_("Curve"), N_("Analysis: compression curve"), N_("Corpus tokens and bytes per token after every merge")),
    Tab("vocabulary", N_("Vocabulary"), N_("Analysis: vocabulary composition"),
        N_("Whole characters, several characters, partial UTF-8")),
    Tab("heldout", N_("Held-out"), N_("Analysis: held-out evaluation"), N_("Encode text the tokenizer never trained on")),
    Tab("baselines", N_("Baselines"), N_("Analysis: baselines"), N_("BPE beside char, word, WordPiece and Unigram tokenizers")),
    Tab("compare", N_("Compare text"), N_("Analysis: compare text"), N_("Any text through several tokenizers; the token tax")),
    Tab("tierules", N_("Tie rules"), N_("Analysis: tie-rule diff"), N_("Where two tie rules make the merge logs part")),
)
#: The tab ids, in order.
TAB_IDS: tuple[str, ...] = tuple(tab.id for tab in TABS)
