"""The app's language: every user-visible string goes through :func:`_` (or :func:`N_` where the
string is defined before the language is chosen, e.g. in module-level tables, and translated
where it is shown).

The catalogs are standard gettext files in ``tui/locale/<lang>/LC_MESSAGES/bpe_lab.po`` (the
template is ``tui/locale/bpe_lab.pot``), shipped compiled beside them (``bpe_lab.mo``), so an
install needs nothing more. ``python -m tui.i18n update`` extracts every marked string from
``tui/``, merges it into each catalog and compiles them (Babel, in the ``test`` extra); a
translator edits the ``.po`` files with any gettext tool and runs it again.

Until :func:`set_language` picks German or Chinese, ``_`` returns its message unchanged. Only
the app sets a language (``--lang``, else the locale); the headless commands stay in English,
and their ``--json`` output never changes.
"""

from __future__ import annotations

import gettext as _gettext
import os
import sys
from collections.abc import Mapping
from pathlib import Path

#: The languages of the UI: English (the source strings) and the catalogs in tui/locale.
LANGUAGES = ("en", "de", "zh")
#: The gettext domain: ``tui/locale/<lang>/LC_MESSAGES/bpe_lab.mo``.
DOMAIN = "bpe_lab"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"

_translation: _gettext.NullTranslations = _gettext.NullTranslations()
_language = "en"


def _(message: str) -> str:
    """The message in the app's language."""
    return _translation.gettext(message) if message else message  # "" would be the catalog's header


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message for ``n``, in the app's language."""
    return _translation.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Mark a message for translation without translating it yet (translate it where it is shown)."""
    return message


def language() -> str:
    """The language the UI speaks now: ``en``, ``de`` or ``zh``."""
    return _language


def locale_language(environ: Mapping[str, str] | None = None) -> str:
    """The UI language the locale asks for (LC_ALL, else LC_MESSAGES, else LANG, as POSIX reads
    them): ``de_DE.UTF-8`` -> ``de``, ``zh_CN.UTF-8`` or ``zh_TW`` -> ``zh``; anything else
    (unset, ``C``, ``fr_FR``) -> ``en``."""
    env = os.environ if environ is None else environ
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(name)
        if value:
            code = value.split(".", 1)[0].split("@", 1)[0].split("_", 1)[0].split("-", 1)[0].lower()
            return code if code in LANGUAGES else "en"
    return "en"


def set_language(lang: str | None = None) -> str:
    """Speak ``lang`` (``en``, ``de`` or ``zh``; None: the locale's, else English) from now on;
    returns the language chosen. ValueError for another language."""
    global _translation, _language
    chosen = locale_language() if lang is None else lang
    if chosen not in LANGUAGES:
        raise ValueError(f"no such language: {lang!r} (bpe-lab speaks {', '.join(LANGUAGES)})")
    if chosen == "en":
        _translation = _gettext.NullTranslations()
    else:
        _translation = _gettext.translation(DOMAIN, LOCALE_DIR, languages=[chosen])
    _language = chosen
    return chosen


# -- the engine's messages -----------------------------------------------------------------------

#: The engine's messages the app shows most (reading and writing files), each as the pattern of
#: its English sentence and the translatable sentence it becomes. The engine speaks English (it
#: never imports the UI); the app translates these where it says them, and others stay English.
ENGINE_MESSAGES = (
    (r"(?P<path>.+): no such file", N_("{path}: no such file")),
    (r"(?P<path>.+): is a directory, not .+", N_("{path}: is a folder, not a file")),
    (r"(?P<path>.+): permission denied", N_("{path}: permission denied")),
    (r"(?P<path>.+): the file is empty", N_("{path}: the file is empty")),
    (r"(?P<path>.+): cannot read \((?P<reason>[^()]*)\)", N_("{path}: cannot read it ({reason})")),
    (r"(?P<name>.+): not fetched yet: bpe-lab fetch (?P<entry>\S+) \(downloads (?P<size>[^,]+), (?P<spec>.+), once; "
     r"then it works offline\)",
     N_("{name}: not fetched yet: bpe-lab fetch {entry} (downloads {size}, {spec}, once; then it works offline)")),
    (r"(?P<path>.+): cannot write \((?P<reason>[^()]*)\); the old file is unchanged",
     N_("{path}: cannot write it ({reason}); the old file is unchanged")),
)
_engine_patterns: list | None = None


def engine_message(message: str) -> str:
    """One of :data:`ENGINE_MESSAGES` in the app's language; any other message as it is.

    Example (German): ``engine_message("/x/c.txt: no such file") -> '/x/c.txt: keine solche Datei'``
    """
    global _engine_patterns
    from tui.extras import with_install_hints  # "pip install 'bpe-lab[plots]'" as this install says it

    message = with_install_hints(message)
    if _language == "en":
        return message
    if _engine_patterns is None:
        import re

        _engine_patterns = [(re.compile(pattern, re.S), template) for pattern, template in ENGINE_MESSAGES]
    for pattern, template in _engine_patterns:
        found = pattern.fullmatch(message)
        if found:
            return _(template).format(**found.groupdict())
    return message


# -- the catalogs (python -m tui.i18n update) ---------------------------------------------------

#: The marking functions the extraction looks for: ``_("…")``, ``N_("…")``, ``ngettext("…", "…", n)``.
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}


HEADER = ("# The strings of bpe-lab's UI (tui/). Edit the translations with any gettext tool (Poedit,\n"
          "# Lokalize, a text editor); python -m tui.i18n update merges new strings in and compiles the .mo.\n#")


def template_path() -> Path:
    return LOCALE_DIR / f"{DOMAIN}.pot"


def catalog_path(lang: str, ext: str = "po") -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.{ext}"


def extract():
    """Every marked string of ``tui/`` as a Babel catalog (the template), in file order."""
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    root = Path(__file__).resolve().parent
    catalog = Catalog(project="bpe-lab", version="0.1.0", copyright_holder="the bpe-lab authors",
                      charset="utf-8", fuzzy=False)
    catalog.header_comment = HEADER
    method_map = [("**.py", "python")]
    for filename, lineno, message, comments, context in extract_from_dir(
        root, method_map, keywords=KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
    ):
        catalog.add(message, None, [(f"tui/{filename}", lineno)], auto_comments=comments, context=context)
    return catalog


def _write(path: Path, catalog, *, mo: bool = False) -> None:
    """Write a catalog atomically (a .po without line numbers, so merges stay quiet)."""
    import io

    from babel.messages.mofile import write_mo
    from babel.messages.pofile import write_po

    from engine.corpus import atomic_write_bytes

    buffer = io.BytesIO()
    if mo:
        write_mo(buffer, catalog)
    else:
        write_po(buffer, catalog, width=100, include_lineno=False, omit_header=False)
    data = buffer.getvalue()
    if not path.exists() or path.read_bytes() != data:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(path, data)


def _read(path: Path, lang: str | None = None):
    from babel.messages.pofile import read_po

    with path.open("rb") as handle:
        return read_po(handle, locale=lang, domain=DOMAIN)


def update() -> list[str]:
    """Extract, merge into each language's .po (new strings untranslated, changed ones fuzzy),
    compile each .mo; returns one line per language on how complete it is."""
    template = extract()
    old_template = _read(template_path()) if template_path().exists() else None
    if old_template is not None and _same_messages(old_template, template):
        template.creation_date = old_template.creation_date  # nothing new: no churn in the header
    _write(template_path(), template)
    report = []
    for lang in LANGUAGES[1:]:
        path = catalog_path(lang)
        if path.exists():
            catalog = _read(path, lang)
            catalog.update(template, update_header_comment=False, update_creation_date=False)
            catalog.obsolete.clear()  # gone from the code: gone from the catalog (git keeps history)
        else:
            from babel.messages.catalog import Catalog

            catalog = Catalog(locale=lang, domain=DOMAIN, project="bpe-lab", version="0.1.0", fuzzy=False,
                              copyright_holder="the bpe-lab authors")
            catalog.header_comment = HEADER
            catalog.update(template)
        _write(path, catalog)
        _write(catalog_path(lang, "mo"), catalog, mo=True)
        missing = untranslated(catalog)
        report.append(f"{lang}: {len(template) - len(missing)}/{len(template)} translated"
                      + (f", {len(missing)} to do (untranslated or fuzzy) in {path}" if missing else ""))
    return report


def _same_messages(a, b) -> bool:
    return [m.id for m in a if m.id] == [m.id for m in b if m.id]


def untranslated(catalog) -> list:
    """The messages of a catalog without a usable translation: empty, or fuzzy."""
    out = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(strings):
            out.append(message.id)
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args != ["update"]:
        print("usage: python -m tui.i18n update   (extract the strings of tui/, update the .po catalogs, compile the .mo)",
              file=sys.stderr)
        return 2
    try:
        import babel  # noqa: F401
    except ImportError:
        print("tui.i18n: error: the catalogs are updated with Babel: pip install -e '.[test]' (or pip install babel)",
              file=sys.stderr)
        return 2
    for line in update():
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
