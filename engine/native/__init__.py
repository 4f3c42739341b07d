"""The optional compiled core (``compiled.pyx`` and its stages, Cython, built at install when a C
compiler is there) and the one door to it, ``door.py``: the hot loops of training, encoding and
scanning, in pure Python or compiled, chosen once (``BPE_LAB_PURE=1`` forces pure Python), asked
for with :func:`backend`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.native.backends import RankIds
    from engine.native.door import BACKEND, COMPILED, PURE, PURE_ENV, WHY_PURE, Backend, backend, implementation, using

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.native.door": ("BACKEND", "COMPILED", "PURE", "PURE_ENV", "WHY_PURE", "Backend", "backend", "implementation",
                           "using"),
    "engine.native.backends": ("RankIds",),
})
