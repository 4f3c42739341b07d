"""The ``bpe-lab`` entry point: headless subcommands run without importing textual."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

#: How to give bpe-lab an environment of its own, where no other distribution's ``engine`` or
#: ``tui`` package can stand in for its own.
OWN_ENVIRONMENT = "python3 -m venv .venv && .venv/bin/pip install . (or pipx install . / uv tool install .)"


def foreign_package() -> str | None:
    """The one-line problem when ``engine`` or ``tui`` is not bpe-lab's own package, else None.

    The two top-level names are generic, so another distribution may ship a package of the same
    name: earlier on ``sys.path`` it shadows ours, in the same site-packages it overwrites our
    ``__init__.py``. Either way bpe-lab would fail later with a confusing traceback, or worse, run
    someone else's code. Ours sit side by side and carry ``__bpe_lab__``; this costs nothing on a
    good install (both are imported anyway) and runs before anything else imports them.
    """
    import importlib
    import importlib.util

    here = Path(__file__).resolve().parent.parent
    for name in ("tui", "engine"):
        try:
            spec = importlib.util.find_spec(name)
            origin = Path(spec.origin).resolve().parent if spec and spec.origin else None
            ours = origin == here / name and getattr(importlib.import_module(name), "__bpe_lab__", False)
        except Exception:  # a foreign package may fail to import in any way: that is the finding
            ours, origin = False, None
        if not ours:
            where = f" at {origin}" if origin else ""
            return (f"the package '{name}'{where} is not bpe-lab's{owner(name)}; "
                    f"install bpe-lab in an environment of its own: {OWN_ENVIRONMENT}")
    return None


def owner(name: str) -> str:
    """`` (it belongs to X)`` when installed distributions other than bpe-lab claim ``name``."""
    from importlib.metadata import packages_distributions

    others = sorted({d for d in packages_distributions().get(name, []) if d.lower().replace("_", "-") != "bpe-lab"})
    return f" (it belongs to {', '.join(others)})" if others else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Dispatch to a headless command (train, encode, decode) or open the app."""
    from tui.cli.common import HEADLESS

    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "serve":  # the app in web browsers (textual-serve)
        from tui.cli.serve import main as serve_main

        return serve_main(args[1:])
    if args and args[0] in HEADLESS:
        from tui.cli.commands import main as cli_main

        if args[0] == "lesson":  # `bpe-lab lesson NAME` starts the app, which only this door may import
            import tui.cli.lesson

            tui.cli.lesson.app_starter = start_lesson
        return cli_main(args)
    from tui.app.launch import launch

    return launch(args)


def start_lesson(name: str, lang: str | None, session: str | None, err) -> int:
    """The app with a lesson (``bpe-lab lesson NAME``): imported only when one starts."""
    from tui.app.launch import start_lesson as launch_lesson

    return launch_lesson(name, lang, session, err)


def entry() -> None:
    """Console-script wrapper: check that ``engine`` and ``tui`` are ours, run, and exit without
    tearing down millions of training objects."""
    problem = foreign_package()
    if problem:
        print(f"bpe-lab: error: {problem}", file=sys.stderr)
        sys.exit(2)
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # Freeing a large trainer object by object at exit can take longer than a second; the OS
    # reclaims it at once. Files were already written (atomically) and streams are flushed.
    os._exit(code)


if __name__ == "__main__":  # python -m tui.main, like python -m tui and the bpe-lab command
    entry()
