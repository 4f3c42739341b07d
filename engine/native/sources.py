"""The compiled core's source files and the digest of them that a build records (``BUILT_FROM``).

hatch_build.py loads this file by its path (it imports nothing of the engine), so the build and
:mod:`engine.native.door`'s check of a stale build read one definition: every ``.pyx`` and
``.pxi`` file of ``engine/native/``, by name, so that a stage added later is covered too.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: The folder of the core's sources (engine/native/).
FOLDER = Path(__file__).resolve().parent
#: The module the build makes from ``compiled.pyx`` (which includes the ``.pxi`` stages).
MODULE = "engine.native.compiled"
MAIN = "compiled.pyx"


def sources(folder: Path = FOLDER) -> list[Path]:
    """The core's source files in ``folder``, by name: ``compiled.pyx`` and the stages it includes."""
    return sorted([*folder.glob("*.pyx"), *folder.glob("*.pxi")], key=lambda path: path.name)


def digest(folder: Path = FOLDER) -> str | None:
    """What a compiled core built from ``folder``'s sources records: 16 hex digits of a SHA-256
    over each source's name and bytes; None where the sources are not there."""
    found = sources(folder)
    if not any(path.name == MAIN for path in found):
        return None
    hashed = hashlib.sha256()
    for path in found:
        data = path.read_bytes()
        hashed.update(f"{path.name}\0{len(data)}\0".encode())
        hashed.update(data)
    return hashed.hexdigest()[:16]
