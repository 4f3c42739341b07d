"""``python -m tui`` runs the same entry point as ``bpe-lab``."""

from .main import entry

entry()
