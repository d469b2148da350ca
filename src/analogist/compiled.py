"""Which code runs: the mypyc-compiled core or the pure-Python source, and why.

The compiled core is two groups of modules, compiled together with mypyc when the package is
built (``setup.py``; ``make venv`` / ``pip install``): the structure mapper (every module of
``analogist.mapping`` but its ``__init__``) and the ingest kernels (:data:`INGEST`: signature
and term parsing, the WL fingerprint and MAC vector, the structure memo, the posting lists, the stored rows —
the per-episode Python of ``Memory.add``). Python would import a compiled module in preference
to its source even after the source changed, so the build records a SHA-256 of each source it
compiled (``_compiled.json``) and ``analogist`` checks it before importing anything else: the
compiled core runs only when every module is built and matches its source; otherwise every
module runs from source, with a ``RuntimeWarning`` saying why and how to rebuild.
``ANALOGIST_PURE_PYTHON=1`` asks for the source on purpose (no warning). Either way
:func:`status` says which one runs; ``analogist --version``, ``bench/mapping.py`` and
``bench/ingest.py`` print it ("a setting that is shown is the one used").

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

PACKAGE = "analogist"
HERE = Path(__file__).resolve().parent
MANIFEST = "_compiled.json"
#: The mypyc group: one shared library (``analogist/_core__mypyc*.so``) for every module.
GROUP = "analogist._core"
#: The ingest path's compiled modules, relative to the package (docs/performance.md, "Ingest").
INGEST = (
    "signature/terms.py",
    "signature/model.py",
    "signature/fingerprint.py",
    "retrieve/postings.py",
    "retrieve/mac.py",
    "retrieve/structure_memo.py",
    "store/signature_rows.py",
    "models/hashing_codes.py",
)
PURE_ENV = "ANALOGIST_PURE_PYTHON"
REBUILD = "rebuild it with `make core` (or `pip install -e .`)"


@dataclass(frozen=True)
class CoreStatus:
    """Which code runs. ``compiled``: the mypyc-built modules; ``reason``: why not."""

    compiled: bool
    reason: str = ""

    def describe(self) -> str:
        if self.compiled:
            return "structure mapping and ingest: compiled core (mypyc)"
        return (
            "structure mapping and ingest: PURE PYTHON (mapping about 2x, ingest about 1.4x "
            f"slower): {self.reason}"
        )


def compiled_sources(root: Path = HERE) -> list[Path]:
    """The sources that are compiled: the mapper's in name order, then :data:`INGEST`."""
    mapping = sorted(p for p in (root / "mapping").glob("*.py") if p.name != "__init__.py")
    return mapping + [root / m for m in INGEST]


def module_name(path: Path, root: Path = HERE) -> str:
    """``mapping.engine`` for ``<root>/mapping/engine.py`` (the manifest's key)."""
    return ".".join(path.relative_to(root).with_suffix("").parts)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_manifest(sources: list[Path], root: Path, target: Path | None = None) -> Path:
    """Records the digest of each compiled source under ``root`` in ``target`` (default
    ``root``; the build's package folder when it is not the source tree)."""
    out = (target or root) / MANIFEST
    digests = {module_name(p, root): digest(p) for p in sources}
    out.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n")
    return out


def _extension(source: Path) -> Path | None:
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found = source.with_name(f"{source.stem}{suffix}")
        if found.exists():
            return found
    return None


def check(root: Path = HERE) -> CoreStatus:
    """Whether every compiled module is built and was built from the source beside it."""
    if os.environ.get(PURE_ENV, "") not in ("", "0"):
        return CoreStatus(False, f"{PURE_ENV} is set")
    sources = compiled_sources(root)
    missing = [module_name(p, root) for p in sources if _extension(p) is None]
    if len(missing) == len(sources):
        return CoreStatus(False, f"the compiled core is not built; {REBUILD}")
    if missing:
        return CoreStatus(False, f"compiled modules missing ({', '.join(missing)}); {REBUILD}")
    try:
        recorded = json.loads((root / MANIFEST).read_text())
    except (OSError, ValueError):
        return CoreStatus(False, f"{MANIFEST} is missing or unreadable; {REBUILD}")
    stale = [
        module_name(p, root) for p in sources if recorded.get(module_name(p, root)) != digest(p)
    ]
    if stale:
        return CoreStatus(
            False,
            f"the source of {', '.join(stale)} changed since the compiled "
            f"core was built; {REBUILD}",
        )
    return CoreStatus(True)


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Imports the compiled modules from their ``.py`` sources."""

    def __init__(self, root: Path):
        self.names = {f"{PACKAGE}.{module_name(p, root)}": p for p in compiled_sources(root)}

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.names.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


_STATUS: CoreStatus | None = None


def select() -> CoreStatus:
    """Decides, once per process and before any compiled module is imported (``analogist``
    calls it first), which modules run."""
    global _STATUS
    if _STATUS is not None:
        return _STATUS
    found = check()
    if found.compiled:
        try:  # the group's shared library, alone: no module of the core is imported yet
            importlib.import_module(GROUP + "__mypyc")
        except ImportError as e:
            found = CoreStatus(False, f"the compiled core does not load ({e}); {REBUILD}")
    if not found.compiled:
        sys.meta_path.insert(0, _SourceFinder(HERE))
        if os.environ.get(PURE_ENV, "") in ("", "0"):
            warnings.warn(f"analogist: {found.describe()}", RuntimeWarning, stacklevel=2)
    _STATUS = found
    return found


def status() -> CoreStatus:
    """Which code this process runs (see :func:`select`)."""
    return _STATUS if _STATUS is not None else select()
