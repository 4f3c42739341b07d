"""The course texts the lessons and samples follow, named as a student knows them: by their title
and chapter, never by the project's internal numbers ("seed 001").

A lesson's front matter still says ``seed = "001"`` (the number is the key); everything a student
reads says :func:`course_text` instead.
"""

from __future__ import annotations

from tui.i18n import N_, _

#: Each course text by its number: its title (in italics in Markdown) and the chapter followed.
COURSE_TEXTS: dict[str, str] = {
    "000": N_("Tokenwerk, chapter 33"),
    "001": N_("XSLM, the BPE tokenizer chapter"),
    "002": N_("Writing a BPE tokenizer by hand"),
    "003": N_("Tokenization: how machines read"),
    "004": N_("the SimpleTokenizerV1 blog post"),
    "005": N_("Tokenization: how machines read, its lab"),
}


def course_text(number: str | int | None) -> str:
    """The course text numbered ``number``, by its title and chapter, in the app's language; a
    number no bundled text has is ``course text N``; None is ``-``.

    Example: ``course_text("001")`` -> ``"XSLM, the BPE tokenizer chapter"``
    """
    if number is None:
        return "-"
    key = str(number).zfill(3)
    if key in COURSE_TEXTS:
        return _(COURSE_TEXTS[key])
    return _("course text {number}").format(number=number)
