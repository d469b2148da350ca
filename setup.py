"""Builds the compiled core with mypyc (``docs/mapping.md``, "The compiled core").

Everything else about the package is in ``pyproject.toml``. The modules of
``analogist.mapping`` (all but ``__init__``) and the ingest kernels (``analogist.compiled.INGEST``)
are compiled to C extensions in one group; the build records each source's SHA-256
(``analogist/_compiled.json``), so that a source edited after the build is noticed and run from
source instead (``analogist.compiled``). If mypyc or a C compiler is missing, or
``ANALOGIST_PURE_PYTHON=1`` is set, the package installs without the core, and every module
runs from source, saying so at import.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import setup  # type: ignore[import-untyped]
from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "_analogist_compiled", ROOT / "src" / "analogist" / "compiled.py"
)
compiled = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
sys.modules[_spec.name] = compiled  # type: ignore[union-attr]  # (dataclasses look it up)
_spec.loader.exec_module(compiled)  # type: ignore[union-attr]
PACKAGE = ROOT / "src" / "analogist"
SOURCES = compiled.compiled_sources(PACKAGE)


def _say(message: str) -> None:
    print(f"\n*** analogist: {message} ***\n", file=sys.stderr)


def extensions() -> list:
    if os.environ.get(compiled.PURE_ENV, "") not in ("", "0"):
        _say("ANALOGIST_PURE_PYTHON is set: the core (mapper, ingest) is not compiled")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        _say(
            "mypyc is not installed: the mapper and ingest run as pure Python (about 2x "
            "and 1.4x slower); install mypy and rebuild"
        )
        return []
    rel = [str(p.relative_to(ROOT)) for p in SOURCES]
    try:  # (imported modules are read for their types; their own errors are not this build's)
        exts = mypycify(
            [
                "--config-file",
                os.devnull,
                "--follow-imports=silent",
                "--ignore-missing-imports",
                *rel,
            ],
            opt_level="3",
            debug_level="0",
            group_name=compiled.GROUP,
        )
    except (SystemExit, Exception) as e:  # noqa: BLE001 - mypyc exits on a type error; any failure falls back, announced
        _say(f"mypyc could not compile the core ({e}): mapper and ingest run as pure Python")
        return []
    for ext in exts:
        ext.optional = True  # a failed C build leaves the pure-Python modules, announced
    return exts


class BuildCore(build_ext):
    """Builds the extensions, then records the digests of the sources they were built from."""

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        target = Path(self.get_ext_fullpath("analogist.compiled")).parent  # (in the build)
        if not any((target / "mapping").glob("engine.*")):
            _say("the compiled core did not build: mapper and ingest run as pure Python")
            return
        compiled.write_manifest(SOURCES, PACKAGE, target)


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildCore})
