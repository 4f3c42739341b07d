"""The ``bpe-lab`` entry point: headless subcommands run without importing textual."""

from __future__ import annotations

import os
import sys
from typing import Sequence

from .cli import HEADLESS


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a headless command (train, encode, decode) or open the app."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in HEADLESS:
        from .cli import main as cli_main

        return cli_main(args)
    from .launch import launch

    return launch(args)


def entry() -> None:
    """Console-script wrapper: exit without tearing down millions of training objects."""
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Freeing a large trainer object by object at exit can take longer than a second; the OS
    # reclaims it at once. Files were already written (atomically) and streams are flushed.
    os._exit(code)


if __name__ == "__main__":  # python -m tui.main, like python -m tui and the bpe-lab command
    entry()
