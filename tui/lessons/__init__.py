"""Lessons (issue 14): guided walkthroughs, as Markdown files with ``bpe`` directive blocks.

``format`` parses and checks a file, ``claims`` checks a claim against a trainer, ``runner``
plays a lesson with the engine alone (``bpe-lab lesson --run``), ``catalog`` finds the bundled
lessons and their language, ``cli`` is ``bpe-lab lesson``. None of these import textual; the app's
side is ``tui/lessons/player.py`` and ``tui/app/widgets/lesson_pane.py``. See docs/lessons.md.
"""
