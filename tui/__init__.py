"""bpe-lab's face: the Textual app and the headless command line.

Importing this package loads nothing heavy; ``tui.app`` is the only module that imports textual.
"""

__bpe_lab__ = True  # tui.main checks it: this `tui` is bpe-lab's, not another distribution's
