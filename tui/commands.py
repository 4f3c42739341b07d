"""The command palette's entries: every key's action, findable by name."""

from __future__ import annotations

from typing import Iterable

from textual.app import SystemCommand

COMMANDS = [
    ("space", "toggle_run", "Run / pause", "Start or pause training"),
    ("n", "step", "Step", "Make one merge"),
    ("u", "undo", "Undo", "Take back the last merge"),
    ("r", "redo", "Redo", "Re-apply an undone merge"),
    ("]", "jump(10)", "Forward 10", "Ten steps forward"),
    ("[", "jump(-10)", "Back 10", "Ten steps back"),
    ("}", "jump(100)", "Forward 100", "A hundred steps forward"),
    ("{", "jump(-100)", "Back 100", "A hundred steps back"),
    ("g", "goto", "Go to step", "Jump to any step"),
    ("/", "find", "Find token", "Find a token by text, bytes or id"),
    ("c", "copy", "Copy", "Copy the selected token or the tokenized output's ids"),
    ("s", "save", "Save tokenizer", "Save the tokenizer as native JSON"),
    ("o", "open", "Open corpus", "Open a corpus file or a bundled sample"),
    (",", "settings", "Settings", "Change base, pre-tokenizer, tie rule or stop rules"),
    ("i", "toggle_ids", "Show ids", "Show token ids instead of text in the corpus"),
    ("t", "toggle_trace", "Trace", "Show the rule-by-rule encoding of the typed text"),
    ("a", "analysis('curve')", "Analysis: compression curve", "Corpus tokens and bytes per token after every merge"),
    ("a 2", "analysis('vocabulary')", "Analysis: vocabulary composition", "Whole characters, several characters, partial UTF-8"),
    ("a 3", "analysis('heldout')", "Analysis: held-out evaluation", "Encode text the tokenizer never trained on"),
    ("a 4", "analysis('baselines')", "Analysis: baselines", "BPE beside char, word, WordPiece and Unigram tokenizers"),
    ("a 5", "analysis('compare')", "Analysis: compare text", "Any text through several tokenizers; the token tax"),
    ("a 6", "analysis('tierules')", "Analysis: tie-rule diff", "Where two tie rules make the merge logs part"),
    ("?", "help", "Help", "All keys and panes"),
    ("q", "quit_app", "Quit", "Quit (asks when there is unsaved work)"),
]


def system_commands(app) -> Iterable[SystemCommand]:
    """One palette entry per command, running the same action as its key."""
    for key, action, title, help_text in COMMANDS:
        yield SystemCommand(f"{title} ({key})", help_text, lambda a=action: app.run_action(a))
