"""Lessons: guided walkthroughs, as Markdown files with ``bpe`` directive blocks.

``format`` parses and checks a file, ``directives`` holds each directive once (how it is
checked, run headless and played; their base class is ``kind``'s, and ``sources`` is where an
``open`` reads its corpus and settings), ``claims`` checks a claim against a trainer, ``runner`` plays
a lesson with the engine alone (``bpe-lab lesson --run``), ``player`` plays it in the app
through a :class:`tui.model.driver.LabDriver`, ``catalog`` finds the bundled lessons and their
language; ``tui/cli/lesson.py`` is ``bpe-lab lesson``. None of these import textual: the app's
side is ``tui/app/widgets/lesson_pane.py``, which draws the player's ``LessonView``. See
docs/lessons.md.
"""
