"""The optional compiled core (``compiled.pyx`` and its stages, Cython, built at install when a C
compiler is there) and the one door to it, ``door.py``: the hot loops of training, encoding and
scanning, in pure Python or compiled, chosen once (``BPE_LAB_PURE=1`` forces pure Python), asked
for with :func:`backend`.

The pure path is the readable reference; the compiled core's constant-factor tricks and their
Python glue live here alone: ``borders.py`` and ``chars_first.py`` (Chinese merged character by
character first) and ``scan_regions.py`` (which stretches of a text the ASCII scanners take).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    # (each name "as" itself: an explicit re-export for strict type checkers)
    from engine.native.backends import MakeBorders as MakeBorders
    from engine.native.backends import RankIds as RankIds
    from engine.native.chars_first import CharsFirst as CharsFirst
    from engine.native.chars_first import chars_first_analysis as chars_first_analysis
    from engine.native.door import BACKEND as BACKEND
    from engine.native.door import COMPILED as COMPILED
    from engine.native.door import PURE as PURE
    from engine.native.door import PURE_ENV as PURE_ENV
    from engine.native.door import WHY_PURE as WHY_PURE
    from engine.native.door import Backend as Backend
    from engine.native.door import backend as backend
    from engine.native.door import implementation as implementation
    from engine.native.door import using as using

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.native.door": ("BACKEND", "COMPILED", "PURE", "PURE_ENV", "WHY_PURE", "Backend", "backend", "implementation",
                           "using"),
    "engine.native.backends": ("MakeBorders", "RankIds"),
    "engine.native.chars_first": ("CharsFirst", "chars_first_analysis"),
})
