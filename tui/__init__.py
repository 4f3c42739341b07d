"""bpe-lab's face: the Textual app and the headless command line.

Importing this package loads nothing heavy. The headless command line (``tui/cli/commands.py``, entered
through ``tui/main.py``: ``bpe-lab train|encode|decode|export|compare``) lives here too and never
imports textual or rich, so scripts start fast (tests/test_import_hygiene.py checks it).
Everything else that draws is Textual: ``app.py`` (the app: workbench, sessions, screens),
``training.py`` (its workers), ``keys.py`` (every key), ``screens/`` and ``widgets/``.
"""

__bpe_lab__ = True  # tui.main checks it: this `tui` is bpe-lab's, not another distribution's
