"""bpe-lab's face: the Textual app and the headless command line.

Importing this package loads nothing heavy; ``tui.app`` is the only module that imports textual.
"""
