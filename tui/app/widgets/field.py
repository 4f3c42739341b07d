"""An input line that leaves a lesson's keys alone.

Textual drops every binding whose key the focused input would type, priority bindings too. While
a lesson is open, `>` and `<` move the lesson from any input beside it (the tokenize line, the
analysis screen's compare text and held-out setting); typing there is a mode of its own, shown by
the input's focus and left with escape. Without a lesson they type as any character does.
"""

from __future__ import annotations

from textual.widgets import Input

#: The keys an open lesson keeps (tui/app/keys.py binds them with priority).
LESSON_KEYS = ("greater_than_sign", "less_than_sign")


class Field(Input):
    """An Input whose `>` and `<` move an open lesson instead of typing."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        lab = getattr(self.app, "lab", None)
        if key in LESSON_KEYS and getattr(lab, "lesson", None) is not None:
            return False
        return super().check_consume_key(key, character)
