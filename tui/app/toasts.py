"""The app's toasts, counted: the one place that relies on Textual's private notification state.

Textual's ``App.notify`` posts a message per call, so a key held down stacks copies of one toast
over the panes. :class:`Toasts` replaces a toast said again while it still shows by one with a
count ("nothing to step … (×6)"). To do that it reads and changes what Textual keeps private:

- ``App._notifications`` (a ``textual.notifications.Notifications``: ``add``, ``in``),
- ``App._unnotify(notification, refresh=False)``, ``App._refresh_notifications()``,
- ``App._thread_id`` (the UI thread), and ``Notification.has_expired``.

:data:`PRIVATE` names them; tests/app/test_toasts.py's canary checks that each is still there, so a
Textual upgrade that changes them fails there by name, not somewhere in a toast.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual.notifications import Notification, SeverityLevel

if TYPE_CHECKING:
    from textual.app import App

#: What this module relies on that Textual does not promise: (object, attribute).
PRIVATE = (("App", "_notifications"), ("App", "_unnotify"), ("App", "_refresh_notifications"),
           ("App", "_thread_id"), ("Notification", "has_expired"), ("Notifications", "add"))


class Toasts:
    """An app's toasts, each said once with a count of its repeats."""

    def __init__(self, app: App) -> None:
        self.app = app
        #: The toast shown for each (title, message, severity), and how many times it was said.
        self._shown: dict[tuple[str, str, str], tuple[Notification, int]] = {}

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        app = self.app
        if threading.get_ident() != app._thread_id:  # thread-safe, as Textual's is
            app.call_from_thread(self.notify, message, title=title, severity=severity, timeout=timeout, markup=markup)
            return
        notifications = app._notifications
        key = (title, message, severity)
        count = 1
        shown = self._shown.get(key)
        if shown is not None and shown[0] in notifications and not shown[0].has_expired:
            app._unnotify(shown[0], refresh=False)
            count = shown[1] + 1
        text = message if count == 1 else f"{message} (×{count})"
        toast = Notification(text, title, severity, app.NOTIFICATION_TIMEOUT if timeout is None else timeout, markup=markup)
        self._shown = {k: v for k, v in self._shown.items() if v[0] in notifications}  # forget gone toasts
        self._shown[key] = (toast, count)
        notifications.add(toast)  # at once, not by a message: the next repeat finds it
        app._refresh_notifications()

    def texts(self) -> list[str]:
        """The toasts showing now, oldest first (what tests read)."""
        return [toast.message for toast in self.app._notifications]
