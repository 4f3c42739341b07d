"""The lesson pane: beside the others, the current step's title, "step k/n", its narrative
(Textual's Markdown widget, scrolling), its claims (✓ or ✗ with expected and actual) and what
its actions said, and a line when the learner has explored away from the lesson's state."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from tui.app.widgets.line_break import BrokenLines
from tui.i18n import _

if TYPE_CHECKING:
    from tui.lessons.player import LessonPlayer


def claims_text(player: LessonPlayer) -> Text:
    """The step's verdicts and notes, one per line (never markup: claims quote "[e4 b8]")."""
    text = Text()
    shown = player.shown.get(player.index)
    if shown is None:
        return text
    for result in shown.results:
        if result.ok:
            text.append("✓ ", style="bold green")
            text.append(f"{result.claim.subject} {result.claim.expected}\n")
        else:
            text.append("✗ ", style="bold red")
            text.append(f"{result.claim.subject} {result.claim.expected}\n", style="red")
            text.append("  " + _("actual: {actual}").format(actual=result.shown_actual) + "\n", style="red")
    for failure in shown.failures:
        text.append(failure + "\n", style="bold red")
    for note in shown.notes:
        text.append(note + "\n", style="yellow")
    return text


class _Breaking:
    """A Markdown block whose text wraps between Chinese characters too (:mod:`.line_break`),
    not only at spaces."""

    def set_content(self, content: Content) -> None:
        self._content = content
        self.update(BrokenLines(content))


# Textual's own block classes, reached through the public table of them.
class LessonParagraph(_Breaking, Markdown.BLOCKS["paragraph_open"]):
    pass


class LessonH2(_Breaking, Markdown.BLOCKS["h2"]):
    pass


class LessonH3(_Breaking, Markdown.BLOCKS["h3"]):
    pass


class LessonMarkdown(Markdown):
    """The lesson's prose: Textual's Markdown, with Chinese lines filled to the pane's width."""

    BLOCKS = {**Markdown.BLOCKS, "paragraph_open": LessonParagraph, "h2": LessonH2, "h3": LessonH3}


class LessonPane(Vertical):
    """Shown with a lesson open (``l`` hides and shows it)."""

    DEFAULT_CSS = """
    LessonPane { display: none; }
    LessonPane.shown { display: block; }
    """

    def compose(self):
        yield Static("", id="lesson-banner")
        with VerticalScroll(id="lesson-scroll"):
            yield LessonMarkdown("", id="lesson-text")
            yield Static("", id="lesson-claims")
        yield Static(_("> next  < back  L again"), id="lesson-keys")

    def show(self, player: LessonPlayer) -> None:
        lesson, index = player.lesson, player.index
        step = lesson.steps[index]
        if index == 0:
            self.border_title = _("lesson: {title}").format(title=lesson.title)
        else:
            self.border_title = _("step {k}/{n}").format(k=index, n=player.count)
        banner = self.query_one("#lesson-banner", Static)
        if player.busy:
            banner.update(Text(_("running the step…"), style="italic"))
        elif player.drifted():
            banner.update(Text(_("you explored: press > to return to the lesson"), style="bold yellow"))
        elif player.note and index == 0:
            banner.update(Text(player.note, style="italic"))
        else:
            banner.update("")
        banner.display = bool(player.busy or player.drifted() or (player.note and index == 0))
        heading = f"## {lesson.title}" if index == 0 else f"## {step.title}"
        markdown = f"{heading}\n\n{step.markdown}"
        view = self.query_one("#lesson-text", Markdown)
        if getattr(self, "_markdown", None) != markdown:
            self._markdown = markdown
            view.update(markdown)
            self.query_one("#lesson-scroll", VerticalScroll).scroll_home(animate=False)
        claims = Content.from_rich_text(claims_text(player))
        self.query_one("#lesson-claims", Static).update(BrokenLines(claims, hang=2))  # a claim's second line under its first's text
