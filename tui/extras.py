"""How to add an optional extra (``plots``, ``serve``, ``scale``, ``compare``) to this bpe-lab, said
for how it was installed: there is no ``bpe-lab`` on the package index, so ``pip install
'bpe-lab[plots]'`` works for nobody.

From a checkout (the README's venv), the answer is that venv's pip and the checkout:
``.venv/bin/pip install '.[plots]'`` (``-e`` when it was installed editable; ``.venv\\Scripts\\pip``
on Windows); from pipx, ``pipx inject bpe-lab LIBRARIES``; from uv, ``uv tool install --reinstall
CHECKOUT --with LIBRARIES``. The engine names an extra as ``pip install 'bpe-lab[NAME]'`` (it knows
no installs); :func:`with_install_hints` rewrites that where a message reaches the user. No textual.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
from pathlib import Path

#: The engine's way of naming an extra in a message, with what it may add in parentheses.
ENGINE_HINT = re.compile(r"pip install 'bpe-lab\[(?P<extra>[a-z]+)\]'(?: \((?:or pip install [^()]*|[^()]*)\))?")


def _distribution():
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        return distribution("bpe-lab")
    except PackageNotFoundError:
        return None


def _shown(path: Path) -> str:
    """``path`` relative to the working folder when it is inside it (``.venv/bin/pip``), else whole."""
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
    except (ValueError, OSError):
        return str(path)
    return str(relative) if str(relative) != "." else "."


def libraries(extra: str) -> list[str]:
    """The requirements the extra brings (``["matplotlib>=3.7"]``), from the installed metadata."""
    dist = _distribution()
    found = []
    for requirement in (dist.requires or []) if dist else []:
        name, _, marker = requirement.partition(";")
        if re.search(r"""extra\s*==\s*["']""" + re.escape(extra) + """["']""", marker):
            found.append(name.strip().replace(" ", ""))
    return found


def install_command(extra: str) -> str:
    """The command that adds ``extra`` to the bpe-lab running now.

    Example (the README's install, from the checkout): ``install_command("plots")`` ->
    ``".venv/bin/pip install '.[plots]'"``
    """
    dist = _distribution()
    origin: dict = {}
    if dist is not None:
        try:
            origin = json.loads(dist.read_text("direct_url.json") or "{}")
        except ValueError:
            origin = {}
    url = origin.get("url", "")
    source = Path(url.removeprefix("file://")) if url.startswith("file://") and "dir_info" in origin else None
    prefix = Path(sys.prefix).as_posix()
    needed = " ".join(shlex.quote(lib) for lib in libraries(extra)) or shlex.quote(f"bpe-lab[{extra}]")
    if "/pipx/venvs/" in prefix:
        return f"pipx inject bpe-lab {needed}"
    if "/uv/tools/" in prefix and source is not None:
        return f"uv tool install --reinstall {shlex.quote(str(source))} --with {needed}"
    scripts = Path(sys.executable).parent
    pip = _shown(scripts / ("pip.exe" if os.name == "nt" else "pip"))
    if os.name != "nt" and "/" not in pip:
        pip = f"./{pip}"
    if source is not None:
        editable = "-e " if origin.get("dir_info", {}).get("editable") else ""
        return f"{pip} install {editable}'{_shown(source)}[{extra}]'"
    return f"{pip} install {needed}"


def with_install_hints(message: str) -> str:
    """``message`` with the engine's ``pip install 'bpe-lab[NAME]'`` said as :func:`install_command`.

    Example: ``"figures need matplotlib: pip install 'bpe-lab[plots]' (or pip install matplotlib)"``
    -> ``"figures need matplotlib: .venv/bin/pip install -e '.[plots]'"`` (from an editable checkout)
    """
    if "bpe-lab[" not in message:
        return message
    return ENGINE_HINT.sub(lambda found: install_command(found.group("extra")), message)
