"""What ``bpe-lab serve`` says at start about memory: what one browser tab (an app process of its
own) costs on the served corpus, and what the most tabs at once would take on this machine.

An estimate, told from the corpus (:func:`tui.model.budget.tab_estimate`), never a tab started
to measure: serving starts in a second, and the figures behind the estimate are in
docs/classroom.md.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from engine.errors import size_text
from tui.cli.common import PROG


def machine_memory() -> int | None:
    """This machine's physical memory in bytes (None where the system does not say)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def about(size: int) -> str:
    """An estimate's size, in whole MB below a GB. Example: ``about(251_766_374) -> '240 MB'``"""
    return size_text(size if size >= 1 << 30 else size >> 20 << 20)


def cost_line(app_args: Sequence[str], root: Path, max_clients: int) -> str | None:
    """One line: a tab's memory on the served corpus once loaded and trained to the end, and
    ``max_clients`` tabs' together beside this machine's memory. None for a chunk-count table
    (``--counts``), whose tab holds no text.

    Example: ``bpe-lab: a tab on tang_all.txt takes about 181 MB loaded, up to about 232 MB trained
    to the end; 40 tabs up to 9.1 GB (this machine has 23.6 GB; see docs/classroom.md)``
    """
    from tui.cli.app_options import build_parser, confine_args
    from tui.cli.common import config_from_args
    from tui.model.budget import tab_estimate
    from tui.model.loaded_corpus import LoadedCorpus
    from tui.model.samples import DEFAULT_SAMPLE

    args = build_parser().parse_args([*app_args, "--serve-root", str(root)])
    confine_args(args)  # the corpus named from where serve started, as a tab opens it
    if args.counts is not None:
        return None
    config = config_from_args(args)
    corpus = LoadedCorpus.open(args.corpus or f"sample:{DEFAULT_SAMPLE}", config.base, max_bytes=args.max_corpus_bytes)
    if args.base is None and args.tokenizer is None:  # as a tab opens it: a mostly-CJK text at the character level
        from tui.model.cjk import character_level

        corpus, config, _note = character_level(corpus, config)
    cost = tab_estimate(corpus, config)
    tabs = "1 tab" if max_clients == 1 else f"{max_clients} tabs"
    line = (f"{PROG}: a tab on {corpus.name} takes about {about(cost.loaded)} loaded, up to about "
            f"{about(cost.trained)} trained to the end; {tabs} up to {about(cost.trained * max_clients)}")
    machine = machine_memory()
    return line + (f" (this machine has {size_text(machine)}; see docs/classroom.md)" if machine else
                   " (see docs/classroom.md)")
