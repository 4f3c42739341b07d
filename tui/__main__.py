"""``python -m tui`` runs the same entry point as ``bpe-lab``."""

from tui.main import entry

entry()
