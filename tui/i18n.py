"""The app's language: every user-visible string goes through :func:`_` (or :func:`N_` where the
string is defined before the language is chosen, e.g. in module-level tables, and translated
where it is shown).

This is the seam the gettext catalogs plug into (issue 15): until a language is set, ``_``
returns its message unchanged.
"""

from __future__ import annotations

import gettext as _gettext

_translation: _gettext.NullTranslations = _gettext.NullTranslations()


def _(message: str) -> str:
    """The message in the app's language."""
    return _translation.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message for ``n``, in the app's language."""
    return _translation.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark a message for translation without translating it yet (translate it where it is shown)."""
    return message
