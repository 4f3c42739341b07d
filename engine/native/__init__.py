"""The optional compiled core (``compiled.pyx``, Cython, built at install when a C compiler is
there) and the one door to it, ``backend.py``: the hot loops of training, encoding and scanning,
in pure Python or compiled, chosen once (``BPE_LAB_PURE=1`` forces pure Python).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.lazy import exports

if TYPE_CHECKING:
    from engine.native.backend import COMPILED, PURE_ENV, implementation

__all__, __getattr__, __dir__ = exports(__name__, {
    "engine.native.backend": ("COMPILED", "PURE_ENV", "implementation"),
})
