"""Which structure mapper runs: the compiled core or the pure-Python source, and why.

The engine's modules (every module of this package but ``__init__`` and this one) are compiled
with mypyc when the package is built (``setup.py``; ``make venv`` / ``pip install``). Python
would import a compiled module in preference to its source even after the source changed, so
the build records a SHA-256 of each source it compiled (``_compiled.json``) and the package
checks it before importing anything: the compiled core runs only when every module is built
and matches its source; otherwise the source runs, with a ``RuntimeWarning`` saying why and
how to rebuild. ``ANALOGIST_PURE_PYTHON=1`` asks for the source on purpose (no warning).
Either way :func:`status` says which one runs; ``analogist --version`` and
``bench/mapping.py`` print it ("a setting that is shown is the one used").

This module uses the standard library only: ``setup.py`` loads it by path at build time.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

PACKAGE = "analogist.mapping"
HERE = Path(__file__).resolve().parent
MANIFEST = "_compiled.json"
NOT_COMPILED = ("__init__.py", "compiled.py")
PURE_ENV = "ANALOGIST_PURE_PYTHON"
REBUILD = "rebuild it with `make core` (or `pip install -e .`)"


@dataclass(frozen=True)
class CoreStatus:
    """Which mapper runs. ``compiled``: the mypyc-built modules; ``reason``: why not."""

    compiled: bool
    reason: str = ""

    def describe(self) -> str:
        if self.compiled:
            return "structure mapping: compiled core (mypyc)"
        return f"structure mapping: PURE PYTHON (about 2x slower): {self.reason}"


def compiled_sources(directory: Path = HERE) -> list[Path]:
    """The sources that are compiled, in name order."""
    return sorted(p for p in directory.glob("*.py") if p.name not in NOT_COMPILED)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(sources: list[Path], directory: Path) -> Path:
    """Records the digest of each compiled source in ``directory`` (called by the build)."""
    out = directory / MANIFEST
    out.write_text(
        json.dumps({p.stem: digest(p) for p in sources}, indent=1, sort_keys=True) + "\n"
    )
    return out


def _extension(directory: Path, stem: str) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found = directory / f"{stem}{suffix}"
        if found.exists():
            return found
    return None


def check(directory: Path = HERE) -> CoreStatus:
    """Whether every compiled module is built and was built from the source beside it."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return CoreStatus(False, f"{PURE_ENV} is set")
    sources = compiled_sources(directory)
    missing = [p.stem for p in sources if _extension(directory, p.stem) is None]
    if len(missing) == len(sources):
        return CoreStatus(False, f"the compiled core is not built; {REBUILD}")
    if missing:
        return CoreStatus(False, f"compiled modules missing ({', '.join(missing)}); {REBUILD}")
    try:
        recorded = json.loads((directory / MANIFEST).read_text())
    except (OSError, ValueError):
        return CoreStatus(False, f"{MANIFEST} is missing or unreadable; {REBUILD}")
    stale = [p.stem for p in sources if recorded.get(p.stem) != digest(p)]
    if stale:
        return CoreStatus(
            False,
            f"the source of {', '.join(stale)} changed since the compiled "
            f"core was built; {REBUILD}",
        )
    return CoreStatus(True)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Imports this package's compiled modules from their ``.py`` sources."""

    def __init__(self, directory: Path):
        self.names = {f"{PACKAGE}.{p.stem}": p for p in compiled_sources(directory)}

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.names.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


_STATUS: CoreStatus | None = None


def select() -> CoreStatus:
    """Decides, once per process and before the engine is imported, which modules run."""
    global _STATUS
    if _STATUS is not None:
        return _STATUS
    found = check()
    if found.compiled:
        try:  # the shared library of the compiled group loads with the first module
            importlib.import_module(f"{PACKAGE}.params")
        except ImportError as e:
            for name in list(sys.modules):
                if name.startswith(f"{PACKAGE}.") and name != __name__:
                    del sys.modules[name]
            found = CoreStatus(False, f"the compiled core does not load ({e}); {REBUILD}")
    if not found.compiled:
        sys.meta_path.insert(0, _SourceFinder(HERE))
        if os.environ.get(PURE_ENV, "") in ("", "0"):
            warnings.warn(f"analogist: {found.describe()}", RuntimeWarning, stacklevel=2)
    _STATUS = found
    return found


def status() -> CoreStatus:
    """Which mapper this process runs (see :func:`select`)."""
    return _STATUS if _STATUS is not None else select()
