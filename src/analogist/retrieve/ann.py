"""Approximate nearest-neighbour search for the dense channels: HNSW via ``usearch``.

Exact cosine (one matrix-vector product over every row) costs O(n · dim) per query — ~100 ms at
a million 384-d rows on one core. An HNSW graph (Malkov & Yashunin 2018) visits a few thousand
rows instead. The graph is built when a snapshot is persisted (:mod:`analogist.retrieve.persist`)
and opened memory-mapped (``view=True``), so opening costs nothing and RSS grows only with the
pages a query touches. Candidates are re-scored exactly from the stored float32 rows, so the
scores a channel reports are exact cosines; only *which* rows are found is approximate
(recall@10 against exact search is measured by ``bench/retrieval.py``).

``usearch`` is an optional dependency (``pip install analogist[scale]``); without it, or with
``ANALOGIST_EXACT_VECTORS=1``, search is exact and says so through ``VectorIndex.mode``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np

from analogist.retrieve.random_access import advise_file
from analogist.retrieve.sparse_rows import SparseRows
from analogist.signature.model import LEVELS

#: Graph parameters: M (connectivity), ef_construction, ef_search. ef_search 800 is what the
#: bench's hardest level needs for recall@10 >= 0.95 at 100k (L0: near-orthogonal bag-of-words
#: vectors; 200 gives 0.80 there, 0.99 on L2); ``ANALOGIST_HNSW_EF`` overrides it.
CONNECTIVITY, EXPANSION_ADD, EXPANSION_SEARCH = 16, 128, 800

#: ef_search per level where it differs from ``EXPANSION_SEARCH`` (measured on the bench's 1M
#: memory, ``bench/ef_sweep.py``, CPU p50 on an idle core): L2 reaches recall@10 0.986 at 200
#: in 4.0 ms (0.987 at 800 in 9.0 ms; 0.997 at 200 at 100k); L3 (an M 32 graph, below) 0.987
#: at 800 in 4.9 ms (an M 16 graph: 0.921 there, 0.946 at 1,600). L0 keeps 800 (0.80 in 9.4 ms at 1M,
#: 0.96 at 100k): 0.935 needs 3,200 and 32 ms there, beyond the latency a search may take.
EXPANSION_SEARCH_BY_LEVEL: dict[str, int] = {"L2": 200, "L3": 800}

#: M per level where it differs from ``CONNECTIVITY``. L3 at M 16 saturated at recall@10 0.951
#: on the bench's 1M memory (ef 3,200, 14.5 ms); at M 32 it reaches 0.987 at ef 800 in 4.9 ms
#: (0.976 at 400), for a 1.2x longer build. L0 gained little per CPU-millisecond from M 32 at
#: 300k (docs/performance.md). A graph keeps the M it was built with (read from its file):
#: one saved before this needs ``save(full=True)`` to be rebuilt at M 32.
CONNECTIVITY_BY_LEVEL: dict[str, int] = {"L3": 32}

#: How the graph stores its copy of the vectors. bf16 is coarser than f16 (8-bit mantissa), which
#: only perturbs which candidates are found (they are re-scored from the float32 rows), and it
#: builds 1.3-1.7x faster on CPUs with bf16 dot products (measured: 2,015 vs 1,489 rows/s at 30k
#: hashing vectors, recall@10 0.998 for both at ef 800); i8 builds faster still but caps
#: recall@10 at 0.91 on dense clustered vectors.
#: A graph keeps the dtype it was written with (read back from its file).
GRAPH_DTYPE = "bf16"

#: Candidates asked of the graph beyond the ``k`` a search returns, all re-scored exactly from
#: the float32 rows: the graph's bf16 copy cannot order rows whose scores agree to ~3 digits,
#: and dense sentence embeddings of similar texts have many such near ties around the tenth
#: place. MiniLM L2 rows at 1M: recall@10 0.948 with none (flat from ef 100 to 800), 0.981
#: with 40 at the default ef 200 (docs/performance.md, eleventh session). On hashing rows it
#: changed nothing (their misses are rows the walk never reaches), and it costs only the
#: re-scoring of 40 rows: the walk's ef already exceeds k + 40.
RESCORE_EXTRA = 40


def expansion_search(level: str | None = None, limit: int | None = None) -> int:
    """ef_search for ``level``'s graph. ``ANALOGIST_HNSW_EF`` sets it: one number for every
    level, or ``L0=3200,L2=400`` per level (levels not named keep their default). ``limit``
    caps the default only (pgvector's ``hnsw.ef_search`` limit); an explicit setting above it
    is the caller's to reject."""
    default = EXPANSION_SEARCH_BY_LEVEL.get(level or "", EXPANSION_SEARCH)
    if limit is not None:
        default = min(default, limit)
    raw = os.environ.get("ANALOGIST_HNSW_EF", "").strip()
    if not raw:
        return default
    if raw.isdigit() and int(raw) > 0:
        return int(raw)
    per_level: dict[str, int] = {}
    for part in raw.split(","):
        name, _, value = part.strip().partition("=")
        if name not in LEVELS or not value.isdigit() or int(value) < 1:
            from analogist.errors import ConfigError

            raise ConfigError(
                f"ANALOGIST_HNSW_EF={raw!r} must be a positive whole number, or LEVEL=N pairs "
                "such as L0=3200,L2=400"
            )
        per_level[name] = int(value)
    return per_level.get(level or "", default)


def expansion_search_text(levels: Iterable[str], limit: int | None = None) -> str:
    """ef_search of ``levels`` as ``analogist info`` shows it: one number, or one per level."""
    efs = {lv: expansion_search(lv, limit) for lv in levels}
    if len(set(efs.values())) == 1:
        return str(next(iter(efs.values())))
    return ", ".join(f"{lv} {ef}" for lv, ef in efs.items())


def _index_class() -> Any:
    """usearch's ``Index``, imported after onnxruntime when that is installed: importing
    onnxruntime (the MiniLM embedder) after usearch crashes the process with a segmentation
    fault (measured here: ``import usearch.index; import onnxruntime``), the other order works."""
    with contextlib.suppress(ImportError):
        import onnxruntime  # noqa: F401
    from usearch.index import Index

    return Index


#: ``ANALOGIST_VECTOR_SEARCH``: ``auto`` (the database's pgvector index where the store has
#: one, else the local graph), ``pgvector`` (the database's, or fail), ``local`` (this module).
VECTOR_SEARCH = ("auto", "pgvector", "local")


def vector_search_choice() -> str:
    """The configured vector search (``ANALOGIST_VECTOR_SEARCH``, default ``auto``)."""
    from analogist.config import env_choice

    return env_choice("VECTOR_SEARCH", VECTOR_SEARCH)


def exact_forced() -> bool:
    """Is exact vector search forced (``ANALOGIST_EXACT_VECTORS=1``)?"""
    return os.environ.get("ANALOGIST_EXACT_VECTORS", "") not in ("", "0")


def available() -> str | None:
    """None when HNSW search can be used, else why not (one line)."""
    if exact_forced():
        return "ANALOGIST_EXACT_VECTORS is set"
    try:
        _index_class()
    except ImportError:
        return "usearch is not installed (pip install 'analogist[scale]')"
    return None


def build_threads() -> int:
    """Threads for building a graph: ``ANALOGIST_HNSW_THREADS`` (default 1, deterministic)."""
    raw = os.environ.get("ANALOGIST_HNSW_THREADS", "1")
    if not raw.isdigit() or int(raw) < 1:
        from analogist.errors import ConfigError

        raise ConfigError(f"ANALOGIST_HNSW_THREADS={raw!r} must be a positive whole number")
    return int(raw)


class Hnsw:
    """A usearch HNSW graph whose keys are document numbers (rows of a ``VectorIndex``)."""

    def __init__(self, index: object, path: Path | None = None):
        self.index = index
        self.path = path

    def __len__(self) -> int:
        return len(self.index)  # type: ignore[arg-type]

    @classmethod
    def build(
        cls, matrix: np.ndarray, threads: int | None = None, level: str | None = None
    ) -> Hnsw:
        """A graph over every row of ``matrix`` (unit rows; inner-product metric). One thread by
        default, so the same rows give the same graph; ``ANALOGIST_HNSW_THREADS=N`` builds
        faster on N cores at the price of that determinism."""
        if threads is None:
            threads = build_threads()

        idx = _index_class()(
            ndim=matrix.shape[1],
            metric="ip",
            dtype=GRAPH_DTYPE,
            connectivity=CONNECTIVITY_BY_LEVEL.get(level or "", CONNECTIVITY),
            expansion_add=EXPANSION_ADD,
            expansion_search=EXPANSION_SEARCH,
        )
        step = 65536
        for a in range(0, len(matrix), step):
            rows = np.ascontiguousarray(matrix[a : a + step], dtype=np.float32)
            idx.add(np.arange(a, a + len(rows), dtype=np.uint64), rows, threads=threads)
        return cls(idx)

    @classmethod
    def extend(
        cls, path: Path, blocks: Iterable[np.ndarray | SparseRows], first: int
    ) -> Hnsw | None:
        """The graph saved at ``path`` read back into memory with ``blocks`` of rows added under
        the keys ``first``, ``first + 1``, ... (an incremental snapshot: only new rows are
        inserted); None when that graph does not hold exactly ``first`` rows."""
        idx = _index_class().restore(str(path), view=False)
        if idx is None or len(idx) != first:
            return None
        idx.expansion_add = EXPANSION_ADD
        threads = build_threads()
        for block in blocks:
            for a in range(0, len(block), 65536):
                rows = np.ascontiguousarray(block[a : a + 65536], dtype=np.float32)
                idx.add(np.arange(first, first + len(rows), dtype=np.uint64), rows, threads=threads)
                first += len(rows)
        return cls(idx)

    def save(self, path: Path) -> None:
        self.index.save(str(path))  # type: ignore[attr-defined]

    @classmethod
    def open(cls, path: Path, level: str | None = None) -> Hnsw:
        """The graph at ``path``, memory-mapped, searching with ``level``'s ef_search."""
        idx = _index_class().restore(str(path), view=True)
        if idx is None:
            raise ValueError(f"{path} is not a usearch index")
        idx.expansion_search = expansion_search(level)  # settable at run time
        advise_file(path)  # no read-ahead around the walk's scattered pages
        return cls(idx, path)

    def candidates(self, query: np.ndarray, k: int) -> np.ndarray:
        """Document numbers of up to ``k`` approximate nearest rows."""
        if len(self) == 0 or k <= 0:
            return np.zeros(0, np.int64)
        found = self.index.search(np.asarray(query, np.float32), min(k, len(self)))  # type: ignore[attr-defined]
        return np.asarray(found.keys, dtype=np.int64)
