"""Build the optional compiled core, ``engine.native.compiled`` (engine/native/compiled.pyx and the
stages it includes, ``*.pxi``), with every wheel and editable install, when it can be built:
Cython makes the C, setuptools' ``build_ext`` compiles it with the machine's C compiler. Anything
that goes wrong (no compiler, no Python headers, no Cython) leaves one note on stderr and a
pure-Python install, which works the same, only slower; the install itself never fails for it.
``BPE_LAB_PURE=1`` at install skips the build.

The compiled module records the digest of every source file it was built from (``BUILT_FROM``:
engine/native/sources.py, loaded here by its path), so that engine.native.door can refuse one
left behind by an editable install whose sources changed since.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

FOLDER = Path("engine") / "native"


def note(message: str) -> None:
    print(f"bpe-lab: {message}; the pure-Python engine is used (the same results, slower)", file=sys.stderr)


def core_sources(root: Path) -> Any:
    """engine/native/sources.py, loaded by its path (importing engine/ would need its dependencies)."""
    spec = importlib.util.spec_from_file_location("bpe_lab_core_sources", root / FOLDER / "sources.py")
    if spec is None or spec.loader is None:
        raise RuntimeError("engine/native/sources.py cannot be loaded")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_core(root: Path, work: Path) -> Path:
    """Compile engine/native/compiled.pyx (with the stages it includes) under ``work``; returns the
    built extension's path."""
    from Cython.Build import cythonize
    from setuptools import Distribution, Extension

    found = core_sources(root)
    digest = found.digest(root / FOLDER)
    src = work / "src"
    src.mkdir(parents=True)
    for path in found.sources(root / FOLDER):
        shutil.copy2(path, src / path.name)
    pyx = src / found.MAIN
    text = pyx.read_bytes()
    marked = text.replace(b"\nBUILT_FROM = None\n", f'\nBUILT_FROM = "{digest}"\n'.encode("ascii"), 1)
    if digest is None or marked == text:
        raise RuntimeError("engine/native/compiled.pyx is missing or has no BUILT_FROM line")
    pyx.write_bytes(marked)
    extension = Extension(found.MODULE, [str(pyx)], extra_compile_args=["-O2"])
    dist = Distribution({"name": "bpe-lab-core", "ext_modules": cythonize([extension], quiet=True, language_level=3)})
    command = dist.get_command_obj("build_ext")
    command.build_lib = str(work / "lib")
    command.build_temp = str(work / "tmp")
    command.ensure_finalized()
    command.run()
    built = Path(command.get_ext_fullpath(found.MODULE))
    if not built.is_file():
        raise RuntimeError("build_ext made no module")
    return built


class CompiledCoreHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if os.environ.get("BPE_LAB_PURE", "").strip() not in ("", "0"):
            note("BPE_LAB_PURE is set, so the compiled core was not built")
            return
        root = Path(self.root)
        work = Path(tempfile.mkdtemp(prefix="bpe-lab-core-"))
        try:
            built = compile_core(root, work)
        except BaseException as exc:  # noqa: BLE001 - any failure, even a compiler's exit, means the pure path
            shutil.rmtree(work, ignore_errors=True)
            if isinstance(exc, KeyboardInterrupt):
                raise
            reason = str(exc).strip().splitlines()[-1:] or [type(exc).__name__]
            note(f"the compiled core was not built ({type(exc).__name__}: {reason[0][:200]})")
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        if version == "editable":
            # An editable install imports engine/ from the source tree: the module goes there
            # (ignored by git), beside the .pyx it was built from.
            for old in (root / "engine" / "native").glob("compiled.*.so"):
                old.unlink()
            shutil.copy2(built, root / "engine" / "native" / built.name)
        else:
            build_data["force_include"][str(built)] = f"engine/native/{built.name}"
        self._work = work

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        work = getattr(self, "_work", None)
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
