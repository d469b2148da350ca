"""Persisted retrieval indexes: S0, S1 and every vector index as files beside the database.

A snapshot is a folder ``<db>.idx/<generation>-<pid>/`` of ``.npy`` arrays (opened memory-mapped,
nothing parsed) plus an HNSW graph per vector index and ``manifest.json``; the link
``<db>.idx/current`` names the live one and is replaced atomically (``os.replace``), so a
crash while saving leaves the previous snapshot in force. The manifest records the database's
``index_state`` (generation, rebuilds) and, per index, the source table rowid it covers
(:mod:`analogist.store.index_sync`). Opening compares them with the database: the same
generation means current; only a newer generation means appends, read past the rowids and
folded into the in-memory tail; another rebuild count (a delete or replace) means the
snapshot is dropped and the index rebuilt from the database — with a warning that says so.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from analogist.retrieve.ann import Hnsw
from analogist.retrieve.ann import available as ann_available
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.frozen import FrozenPostings, IdTable, LayeredPostings, key64, keys64
from analogist.retrieve.mac import MacIndex
from analogist.retrieve.postings import Postings
from analogist.retrieve.wl import FingerprintIndex

FORMAT = 1


def snapshot_root(db_path: str) -> Path | None:
    """Where a database's snapshots live (None for an in-memory database)."""
    if db_path == ":memory:" or db_path.startswith("file:"):
        return None
    if db_path.startswith(("postgresql://", "postgres://")):
        from analogist.store.postgres import snapshot_dir

        return snapshot_dir(db_path)
    return Path(db_path + ".idx")


def _save_ids(d: Path, prefix: str, ids: IdTable) -> None:
    full = ids if not ids.tail else ids.merged()
    np.save(d / f"{prefix}ids.npy", np.asarray(full.base))
    np.save(d / f"{prefix}ids_order.npy", np.asarray(full.order))
    np.save(d / f"{prefix}ids_keys.npy", np.asarray(full.sorted_keys))


def _load_ids(d: Path, prefix: str) -> IdTable:
    return IdTable(
        *(np.load(d / f"{prefix}{n}.npy", mmap_mode="r") for n in ("ids", "ids_order", "ids_keys"))
    )


def _frozen(p: LayeredPostings | Postings) -> FrozenPostings:
    return (p if isinstance(p, LayeredPostings) else LayeredPostings(tail=p)).freeze()


def _save_postings(d: Path, prefix: str, p: LayeredPostings | Postings) -> None:
    fp = _frozen(p)
    for name in FrozenPostings.ARRAYS:
        np.save(d / f"{prefix}{name}.npy", getattr(fp, name))


def _load_postings(d: Path, prefix: str) -> LayeredPostings:
    arrays = {
        n: np.load(d / f"{prefix}{n}.npy", mmap_mode="r")
        for n in FrozenPostings.ARRAYS
        if (d / f"{prefix}{n}.npy").exists()
    }
    return LayeredPostings(FrozenPostings(**arrays))  # hot columns may be absent (none hot)


def save_fingerprints(d: Path, idx: FingerprintIndex) -> None:
    _save_ids(d, "fp_", idx.ids)
    _save_postings(d, "fp_", idx.postings)
    n0 = len(idx.hash_keys)
    keys = np.concatenate([np.asarray(idx.hash_keys), keys64(idx.tail_hashes)])
    tail_docs = np.arange(len(idx) - len(idx.tail_hashes), len(idx), dtype=np.int32)
    docs = (
        np.concatenate([np.asarray(idx.hash_docs), tail_docs])
        if n0 or len(tail_docs)
        else tail_docs
    )
    order = np.lexsort((docs, keys))
    np.save(d / "fp_hash_keys.npy", keys[order])
    np.save(d / "fp_hash_docs.npy", docs[order].astype(np.int32))


def load_fingerprints(d: Path, version: str) -> FingerprintIndex:
    return FingerprintIndex(
        version,
        _load_postings(d, "fp_"),
        _load_ids(d, "fp_"),
        np.load(d / "fp_hash_keys.npy", mmap_mode="r"),
        np.load(d / "fp_hash_docs.npy", mmap_mode="r"),
    )


def save_mac(d: Path, idx: MacIndex) -> None:
    _save_ids(d, "mac_", idx.ids)
    _save_postings(d, "mac_", idx.postings)


def load_mac(d: Path) -> MacIndex:
    return MacIndex(_load_postings(d, "mac_"), _load_ids(d, "mac_"))


def vector_prefix(level: str, embedder: str) -> str:
    return f"vec_{level}_{key64(embedder):016x}_"


def save_vectors(d: Path, idx: VectorIndex, prefix: str) -> bool:
    """Rows, ids and (when usearch is available) an HNSW graph; True if a graph was written."""
    _save_ids(d, prefix, idx.ids)
    rows = idx.matrix
    np.save(d / f"{prefix}rows.npy", rows)
    if ann_available() is None and len(rows):
        Hnsw.build(rows).save(d / f"{prefix}hnsw.usearch")
        return True
    return False


def load_vectors(d: Path, prefix: str, dim: int, with_ann: bool) -> VectorIndex:
    rows = np.load(d / f"{prefix}rows.npy", mmap_mode="c")
    graph = d / f"{prefix}hnsw.usearch"
    ann = Hnsw.open(graph) if with_ann and graph.exists() and ann_available() is None else None
    return VectorIndex(dim, base=rows, ids=_load_ids(d, prefix), ann=ann)


def current_snapshot(root: Path | None) -> tuple[Path, dict[str, Any]] | None:
    """The live snapshot folder and its manifest, or None (no snapshot, or an unreadable one)."""
    if root is None:
        return None
    link = root / "current"
    try:
        folder = root / os.readlink(link)
        manifest = json.loads((folder / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    if manifest.get("format") != FORMAT:
        return None
    return folder, manifest


def publish(root: Path, folder: Path, manifest: dict[str, Any]) -> None:
    """Write the manifest, point ``current`` at ``folder`` atomically, drop older snapshots."""
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True))
    for f in folder.iterdir():
        with open(f, "rb") as fh:
            os.fsync(fh.fileno())
    tmp = root / f".current-{os.getpid()}"
    if tmp.is_symlink():
        tmp.unlink()
    os.symlink(folder.name, tmp)
    os.replace(tmp, root / "current")
    try:
        live = os.readlink(root / "current")  # another writer may have published since
    except OSError:
        live = folder.name
    for old in root.iterdir():
        if not old.is_dir() or old.is_symlink() or old.name in (folder.name, live):
            continue
        if old.name.startswith(".tmp-") and _alive(old.name.rsplit("-", 1)[-1]):
            continue  # another process is writing its snapshot
        shutil.rmtree(old, ignore_errors=True)


def _alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True
