"""The Textual app: the only code under tui/ that imports textual.

``from tui.app import BpeApp`` is the app; it is loaded on first use, so that importing this
package (for the launcher's argument parser, say) does not import textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tui.app.shell import BpeApp

__all__ = ["BpeApp"]


def __getattr__(name: str) -> Any:
    if name == "BpeApp":
        from tui.app.shell import BpeApp

        return BpeApp
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
