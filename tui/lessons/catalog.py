"""The bundled lessons (``assets/lessons/NNN-name.LANG.md``, shipped in the wheel as
``tui/lessons/bundled``) and which language to show them in. No textual."""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from tui.i18n import _
from tui.i18n import locale_language as locale_lang  # lessons come in the UI's languages
from tui.lessons.format import LANGUAGES, Lesson, LessonError, parse

DEFAULT_LANG = "en"


def lesson_folder() -> Path:
    """Where the bundled lessons live: inside the installed package, or a checkout's assets/lessons."""
    packaged = resources.files("tui.lessons").joinpath("bundled")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent.parent / "assets" / "lessons"


def split_name(path: Path) -> tuple[str, str | None]:
    """``000-die-katze.en.md`` -> ("000-die-katze", "en"); a name without a language -> (stem, None)."""
    stem = path.name.removesuffix(".md")
    base, dot, lang = stem.rpartition(".")
    if dot and lang in LANGUAGES:
        return base, lang
    return stem, None


@dataclass(frozen=True)
class Bundled:
    """One bundled lesson: its name and its file in each language."""

    name: str
    files: dict[str, Path]

    @property
    def languages(self) -> list[str]:
        return [lang for lang in LANGUAGES if lang in self.files]

    def file(self, lang: str) -> tuple[Path, str | None]:
        """The file in ``lang``, else English (with a note saying so), else the first there is."""
        if lang in self.files:
            return self.files[lang], None
        fallback = DEFAULT_LANG if DEFAULT_LANG in self.files else self.languages[0]
        return self.files[fallback], _("lesson {name} has no {lang} version: showing it in {fallback}").format(
            name=self.name, lang=lang, fallback=fallback)

    def matches(self, name: str) -> bool:
        """``000-die-katze``, ``000`` or ``die-katze`` name this lesson."""
        number, _, rest = self.name.partition("-")
        return name in (self.name, number, rest)


def bundled() -> list[Bundled]:
    """Every bundled lesson, by name."""
    folder = lesson_folder()
    found: dict[str, dict[str, Path]] = {}
    if folder.is_dir():
        for path in sorted(folder.glob("*.md")):
            name, lang = split_name(path)
            found.setdefault(name, {})[lang or DEFAULT_LANG] = path
    return [Bundled(name, files) for name, files in sorted(found.items())]


def find_bundled(name: str) -> Bundled | None:
    for each in bundled():
        if each.matches(name):
            return each
    return None


def resolve(name_or_path: str, lang: str | None = None) -> tuple[Path, str | None]:
    """The lesson file a name or path means, and a note when it falls back to another language.
    LessonError (one line) when there is none."""
    lang = lang or locale_lang()
    path = Path(name_or_path).expanduser()
    if path.suffix == ".md" or os.sep in name_or_path or path.exists():
        if not path.exists():
            raise LessonError(_("{name}: no such lesson file").format(name=name_or_path))
        if path.is_dir():
            raise LessonError(_("{name}: is a directory, not a lesson file").format(name=name_or_path))
        return path, None
    found = find_bundled(name_or_path)
    if found is None:
        raise LessonError(_("no lesson named {name} (bpe-lab lesson lists the bundled ones; a lesson file ends in .md)").format(
            name=repr(name_or_path)))
    return found.file(lang)


def load(name_or_path: str, lang: str | None = None) -> tuple[Lesson, str | None]:
    """Parse the lesson a name or path means (LessonError on the first problem), and its note."""
    path, note = resolve(name_or_path, lang)
    return parse(path), note
