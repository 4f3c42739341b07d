"""The lesson list (`l`): the bundled lessons in the app's language, or a lesson file by path.
Returns (lesson, note) or None; a file that does not parse is said inside the dialog."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from engine.text import inert
from tui.i18n import N_, _, language
from tui.lessons.catalog import bundled
from tui.lessons.format import LessonError, parse
from tui.model.confine import confinement_of
from tui.model.course import course_text


def lesson_option(name: str, title: str, seed: str | None, languages: list[str]) -> Text:
    text = Text()
    text.append(inert(title), style="bold")  # from a file: never an escape sequence
    text.append("\n  " + _("{name}: {course}, in {languages}").format(
        name=name, course=course_text(seed), languages=", ".join(languages)), style="dim")
    return text


class LessonListScreen(ModalScreen):
    """Pick a bundled lesson (↑↓, Enter) or type a lesson file's path."""

    BINDINGS = [Binding("escape", "cancel", N_("Cancel"))]

    # The list scrolls so the file path input below it stays on screen at 80×24.
    DEFAULT_CSS = """
    LessonListScreen #lesson-list { height: auto; max-height: 38vh; }
    """

    def __init__(self, lang: str | None = None) -> None:
        super().__init__()
        self.lang = lang or language()  # the lessons speak the UI's language (--lang, else the locale)
        self._files: dict[str, tuple[Path, str | None]] = {}

    def compose(self) -> ComposeResult:
        options = []
        for each in bundled():
            path, note = each.file(self.lang)
            try:
                lesson = parse(path)
                title, seed = lesson.title, lesson.seed
            except LessonError as exc:
                title, seed = str(exc), None
            self._files[each.name] = (path, note)
            options.append(Option(lesson_option(each.name, title, seed, each.languages), id=each.name))
        with Vertical(classes="dialog", id="lesson-dialog"):
            yield Label(_("Lessons"), classes="dialog-title")
            if options:
                yield Label(_("A guided walkthrough of each course text (↑↓, Enter):"), classes="dialog-hint")
                yield OptionList(*options, id="lesson-list")
            else:
                yield Label(_("No bundled lessons here."), classes="dialog-hint")
            yield Label(_("…or open a lesson file:"), classes="dialog-hint")
            yield Input(placeholder=_("path to a lesson .md file, then Enter"), id="lesson-path")
            yield Label("", id="lesson-error", classes="dialog-error")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        path, note = self._files[event.option.id]
        self._open(path, note)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if typed:
            rules = confinement_of(self.app)
            try:  # in a browser (bpe-lab serve): a lesson file only from the served folder
                path = rules.readable(typed) if rules is not None else Path(typed).expanduser()
            except ValueError as exc:
                self.query_one("#lesson-error", Label).update(Text(str(exc)))
                return
            self._open(path, None)

    def _open(self, path: Path, note: str | None) -> None:
        rules = confinement_of(self.app)
        try:  # in a browser: the lesson's files must be in the served folder too (said before whether they exist)
            lesson = parse(path, within=None if rules is None else (rules.root, *rules.bundled))
        except LessonError as exc:
            self.query_one("#lesson-error", Label).update(Text(str(exc)))
            return
        self.dismiss((lesson, note))

    def action_cancel(self) -> None:
        self.dismiss(None)
