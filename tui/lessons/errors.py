"""The lesson errors: below the parser and the claims' syntax, so both raise them."""

from __future__ import annotations


class LessonError(ValueError):
    """A lesson file that cannot be read or used: one line, ``FILE:LINE: message``."""


class OutsideLessonError(LessonError):
    """A path a lesson names outside the folders it may read (:attr:`Lesson.reach`)."""
