"""The headless commands (train, encode, decode, export, compare, count, plot, report, lesson,
serve): for scripts, and fast to start. Nothing in this package imports textual."""
