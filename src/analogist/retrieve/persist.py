"""Persisted retrieval indexes: S0, S1 and every vector index as files beside the database.

A snapshot is a folder ``<db>.idx/<generation>-<pid>/`` of ``.npy`` arrays (opened memory-mapped,
nothing parsed) plus, per vector index, per-dimension lists (sparse rows) or an HNSW graph, and
``manifest.json``; the link
``<db>.idx/current`` names the live one and is replaced atomically (``os.replace``), so a
crash while saving leaves the previous snapshot in force. The manifest records the database's
``index_state`` (generation, rebuilds) and, per index, the source table rowid it covers
(:mod:`analogist.store.index_sync`). Opening compares them with the database: the same
generation means current; only a newer generation means appends, read past the rowids and
folded into the in-memory tail; another rebuild count (a delete or replace) means the
snapshot is dropped and the index rebuilt from the database — with a warning that says so.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from analogist.retrieve import sparse_rows
from analogist.retrieve.ann import Hnsw, exact_forced
from analogist.retrieve.ann import available as ann_available
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.frozen import (
    DELTA_SHARE,
    FrozenPostings,
    IdTable,
    LayeredPostings,
    key64,
    keys64,
    merge_sorted,
)
from analogist.retrieve.mac import MacIndex
from analogist.retrieve.postings import Postings
from analogist.retrieve.random_access import advise_random, hard_link, prefetch
from analogist.retrieve.sparse_rows import SparseRows
from analogist.retrieve.vector_lists import (
    SAMPLE_ROWS,
    VectorLists,
    row_parts,
    use_lists,
    vector_index_choice,
)
from analogist.retrieve.wl import FingerprintIndex

#: Snapshot format written; ``READABLE`` lists those opened (1: vector rows as ``.npy``; 3: S0
#: and S1 postings may have a delta layer, ``*_delta_*.npy``, which a reader of 2 would miss;
#: 4: so may every id table, ``*_delta_ids*.npy``, and S0's WL-hash table).
FORMAT, READABLE = 4, (1, 2, 3, 4)


def snapshot_root(db_path: str) -> Path | None:
    """Where a database's snapshots live (None for an in-memory database)."""
    if db_path == ":memory:" or db_path.startswith("file:"):
        return None
    if db_path.startswith(("postgresql://", "postgres://")):
        from analogist.store.postgres import snapshot_dir

        return snapshot_dir(db_path)
    return Path(db_path + ".idx")


def _keep_base(
    base_from: Path | None, d: Path, files: list[str], base: int, fresh: int, some: bool = False
) -> bool:
    """Does a save keep a layer's base? Yes when ``base_from`` (the live snapshot folder the
    base was opened from) is given, the base holds entries, the ``fresh`` entries after it stay
    within :data:`DELTA_SHARE` of its ``base`` and each of its ``files`` hard-links from there
    into ``d`` (``some``: those of them present there; optional arrays may be absent). When
    not, the links made are removed again, so that the caller writes the base whole."""
    keep = (
        base_from is not None
        and base > 0
        and fresh <= DELTA_SHARE * base
        and all(
            hard_link(base_from / f, d / f) for f in files if not some or (base_from / f).exists()
        )
    )
    if not keep:
        for f in files:
            (d / f).unlink(missing_ok=True)
    return keep


#: The arrays of a saved id table (:class:`~analogist.retrieve.frozen.IdTable`).
ID_ARRAYS = ("ids", "ids_order", "ids_keys")


def save_ids(d: Path, prefix: str, ids: IdTable, base_from: Path | None = None) -> dict:
    """Write ``ids`` as a base (``{prefix}ids*.npy``) and, when documents follow it, a delta
    (``{prefix}delta_ids*.npy``). With ``base_from`` — the live snapshot folder the table's
    base was opened from — and no more new ids than :data:`DELTA_SHARE` of the base, the base's
    files are hard-linked from there and only the delta and tail are written, as one frozen
    table (in proportion to what follows the base); otherwise every layer is merged into a new
    base (O(size)), as the postings are (:func:`_save_postings`). Returns the manifest fields."""
    fresh = len(ids) - len(ids.base)
    files = [f"{prefix}{n}.npy" for n in ID_ARRAYS]
    if _keep_base(base_from, d, files, len(ids.base), fresh):
        if fresh:
            _write_ids(d, f"{prefix}delta_", ids.frozen_fresh())
        return {"ids_base_kept": True, "ids_delta": fresh}
    _write_ids(d, prefix, ids.merged())
    return {"ids_base_kept": False, "ids_delta": 0}


def _write_ids(d: Path, prefix: str, ids: IdTable) -> None:
    for name, array in zip(ID_ARRAYS, (ids.base, ids.order, ids.sorted_keys), strict=True):
        np.save(d / f"{prefix}{name}.npy", np.asarray(array))


def _read_ids(d: Path, prefix: str) -> IdTable | None:
    if not (d / f"{prefix}ids.npy").exists():
        return None
    ids, order, keys = (_mapped(d / f"{prefix}{n}.npy") for n in ID_ARRAYS)
    return IdTable(ids, order, keys)


def _load_ids(d: Path, prefix: str) -> IdTable:
    base = _read_ids(d, prefix)
    if base is None:
        raise OSError(f"{d / f'{prefix}ids.npy'} is missing")
    return IdTable(base.base, base.order, base.sorted_keys, _read_ids(d, f"{prefix}delta_"))


#: Postings arrays read whole (every document's sum and norm), so left to the kernel's
#: read-ahead; the others are read at scattered places (random_access.py).
_READ_WHOLE = ("sums", "norms")


def _mapped(path: Path, scattered: bool = True) -> np.ndarray:
    """A saved array memory-mapped read-only; ``scattered``: advised random-access."""
    array = np.load(path, mmap_mode="r")
    if scattered:
        advise_random(array)
    return array


def _save_postings(
    d: Path, prefix: str, p: LayeredPostings | Postings, base_from: Path | None = None
) -> dict:
    """Write ``p`` as a base (``{prefix}{array}.npy``) and, when it has one, a delta layer
    (``{prefix}delta_{array}.npy``). With ``base_from`` — the live snapshot folder ``p``'s base
    was opened from — and a delta within :data:`DELTA_SHARE` of the base, the base's files are
    hard-linked from there and only the delta and tail are written, frozen together (O(new));
    otherwise every layer is merged into a new base (O(size)). Returns the manifest fields."""
    layered = p if isinstance(p, LayeredPostings) else LayeredPostings(tail=p)
    fresh = layered.delta.n_docs + layered.tail.n_docs
    files = [f"{prefix}{n}.npy" for n in FrozenPostings.ARRAYS]  # hot columns may be absent
    if _keep_base(base_from, d, files, layered.base.n_docs, fresh, some=True):
        if fresh:  # nothing new since the base: no delta files
            _write_postings(d, f"{prefix}delta_", layered.freeze_delta())
        return {"postings_base_kept": True, "postings_delta": fresh}
    _write_postings(d, prefix, layered.freeze())
    return {"postings_base_kept": False, "postings_delta": 0}


def _write_postings(d: Path, prefix: str, fp: FrozenPostings) -> None:
    for name in FrozenPostings.ARRAYS:
        np.save(d / f"{prefix}{name}.npy", getattr(fp, name))


def _read_postings(d: Path, prefix: str) -> FrozenPostings | None:
    """The frozen layer saved under ``prefix`` in ``d`` (None when there is none)."""
    if not (d / f"{prefix}sums.npy").exists():
        return None
    arrays = {
        n: _mapped(d / f"{prefix}{n}.npy", scattered=n not in _READ_WHOLE)
        for n in FrozenPostings.ARRAYS
        if (d / f"{prefix}{n}.npy").exists()
    }
    return FrozenPostings(**arrays)  # hot columns may be absent (none hot)


def _load_postings(d: Path, prefix: str) -> LayeredPostings:
    base = _read_postings(d, prefix)
    if base is None:
        raise OSError(f"{d / f'{prefix}sums.npy'} is missing")
    return LayeredPostings(base, delta=_read_postings(d, f"{prefix}delta_"))


def save_fingerprints(d: Path, idx: FingerprintIndex, base_from: Path | None = None) -> dict:
    fields = save_ids(d, "fp_", idx.ids, base_from)
    fields.update(_save_postings(d, "fp_", idx.postings, base_from))
    fields.update(_save_hashes(d, idx, base_from))
    return fields


#: The arrays of S0's WL-hash table: keys sorted, and their document numbers.
HASH_ARRAYS = ("hash_keys", "hash_docs")


def _save_hashes(d: Path, idx: FingerprintIndex, base_from: Path | None) -> dict:
    """S0's WL-hash table, kept like the ids (:func:`save_ids`): with ``base_from`` and few new
    documents the base's files are hard-linked and the delta's and tail's entries, merged, are
    written as ``fp_hash_delta_*.npy``; otherwise the layers are merged into a new base."""
    tail_keys = keys64(idx.tail_hashes)
    tail_docs = np.arange(len(idx) - len(idx.tail_hashes), len(idx), dtype=np.int32)
    order = np.lexsort((tail_docs, tail_keys))  # the frozen runs are sorted: merge the tail in
    delta_keys, delta_docs = merge_sorted(
        np.asarray(idx.hash_delta[0], np.uint64),
        (np.asarray(idx.hash_delta[1], np.int32),),
        tail_keys[order],
        (tail_docs[order],),
    )
    files = [f"fp_{n}.npy" for n in HASH_ARRAYS]
    if _keep_base(base_from, d, files, len(idx.hash_keys), len(delta_keys)):
        if len(delta_keys):
            np.save(d / "fp_hash_delta_keys.npy", delta_keys.astype(np.uint64))
            np.save(d / "fp_hash_delta_docs.npy", delta_docs.astype(np.int32))
        return {"hashes_base_kept": True, "hashes_delta": len(delta_keys)}
    prefetch(idx.hash_keys), prefetch(idx.hash_docs)
    keys, docs = merge_sorted(
        np.asarray(idx.hash_keys, np.uint64),
        (np.asarray(idx.hash_docs, np.int32),),
        delta_keys,
        (delta_docs,),
    )
    np.save(d / "fp_hash_keys.npy", keys.astype(np.uint64))
    np.save(d / "fp_hash_docs.npy", docs.astype(np.int32))
    return {"hashes_base_kept": False, "hashes_delta": 0}


def load_fingerprints(d: Path, version: str) -> FingerprintIndex:
    delta = None
    if (d / "fp_hash_delta_keys.npy").exists():
        delta = (_mapped(d / "fp_hash_delta_keys.npy"), _mapped(d / "fp_hash_delta_docs.npy"))
    return FingerprintIndex(
        version,
        _load_postings(d, "fp_"),
        _load_ids(d, "fp_"),
        _mapped(d / "fp_hash_keys.npy"),
        _mapped(d / "fp_hash_docs.npy"),
        delta,
    )


def save_mac(d: Path, idx: MacIndex, base_from: Path | None = None) -> dict:
    fields = save_ids(d, "mac_", idx.ids, base_from)
    fields.update(_save_postings(d, "mac_", idx.postings, base_from))
    return fields


def load_mac(d: Path) -> MacIndex:
    return MacIndex(_load_postings(d, "mac_"), _load_ids(d, "mac_"))


def vector_prefix(level: str, embedder: str) -> str:
    return f"vec_{level}_{key64(embedder):016x}_"


def save_vectors(
    d: Path, idx: VectorIndex, level: str, embedder: str, base_from: Path | None
) -> dict:
    """Rows, ids and what finds a search's candidates: per-dimension lists for sparse rows
    (:mod:`analogist.retrieve.vector_lists`, exact), with the rows themselves kept sparse
    (:mod:`analogist.retrieve.sparse_rows`); else raw float32 rows (``rows.f32``) and, when
    usearch is available, an HNSW graph (``ANALOGIST_VECTOR_INDEX`` overrides the choice).

    With ``base_from`` — the live snapshot folder whose files ``idx.base`` was opened from —
    the save is incremental: the rows' files are hard-linked from there and only the tail is
    appended after the base's rows (a reader of the older snapshot maps just its own rows, so
    it never sees them), and the lists or graph are read back from there and only the tail is
    added (a level keeps the kind its snapshot has until a full save decides again).
    Otherwise every row is written and the lists or graph built. Returns the manifest fields.
    """
    prefix = vector_prefix(level, embedder)
    n0, n = len(idx.base), len(idx)
    fields = {
        **save_ids(d, prefix, idx.ids, base_from),
        "rows": "f32",
        "rows_linked": False,
        "hnsw": False,
        "hnsw_extended": False,
        "lists": False,
        "lists_extended": False,
    }
    choice = vector_index_choice()
    old_graph = (base_from or d) / f"{prefix}hnsw.usearch"
    extend_lists = base_from is not None and n0 and VectorLists.exists(base_from, prefix)
    extend_graph = base_from is not None and n0 and old_graph.exists()
    if n and (
        (extend_lists and choice != "hnsw")
        or (not (extend_graph and choice != "lists") and use_lists(_sample(idx)))
    ):
        fields["rows"] = "sparse"
        lists = _save_sparse(d, prefix, idx, base_from if extend_lists else None, fields)
        lists.save(d, prefix)
        fields["lists"] = True
        fields["lists_segments"] = len(lists.segments)
        return fields
    raw, old_raw = d / f"{prefix}rows.f32", (base_from or d) / f"{prefix}rows.f32"
    width = idx.dim * 4
    linked = (
        base_from is not None
        and old_raw.exists()
        and old_raw.stat().st_size >= n0 * width
        and hard_link(old_raw, raw)
    )
    with open(raw, "r+b" if linked else "wb") as f:
        if linked:
            f.truncate(n0 * width)  # drop what a crashed save may have appended
            f.seek(n0 * width)
            blocks: Iterable[np.ndarray] = (p for p, _ in row_parts(idx.tail_blocks(), n0))
        else:
            blocks = _row_blocks(idx)
        for block in blocks:
            block.tofile(f)
        f.flush()
        os.fsync(f.fileno())
    fields["rows_linked"] = linked
    if n == 0 or ann_available() is not None:
        return fields
    graph = None
    if extend_graph and choice != "lists":
        graph = Hnsw.extend(old_graph, idx.tail_blocks(), n0)
        fields["hnsw_extended"] = graph is not None
    if graph is None:
        graph = Hnsw.build(_map_rows(raw, n, idx.dim, "r"), level=level)
    graph.save(d / f"{prefix}hnsw.usearch")
    fields["hnsw"] = True
    return fields


def _save_sparse(
    d: Path, prefix: str, idx: VectorIndex, lists_from: Path | None, fields: dict
) -> VectorLists:
    """Write ``idx``'s rows in sparse form (hard-linked and extended when ``lists_from``, the
    live snapshot, holds them sparse too) and return the per-dimension lists over them:
    ``lists_from``'s extended by the tail, or built over every row."""
    n0, n = len(idx.base), len(idx)
    extend = None
    base = idx.base
    if (
        lists_from is not None
        and isinstance(base, SparseRows)
        and sparse_rows.exists(lists_from, prefix)
    ):
        extend = (lists_from, base)
    tail = idx.tail_blocks()
    fields["rows_linked"] = sparse_rows.write(
        d,
        prefix,
        idx.dim,
        (p for p, _ in row_parts(tail, n0)) if extend is not None else _row_blocks(idx),
        extend,
    )
    if lists_from is not None:
        fields["lists_extended"] = True
        return VectorLists.open(lists_from, prefix, n0).extended(tail, n - n0)
    return VectorLists.from_blocks([idx.base, *tail], n, idx.dim)


def _row_blocks(idx: VectorIndex) -> Iterator[np.ndarray]:
    """Every row of ``idx`` (base, then tail), dense float32, in parts of bounded size."""
    if isinstance(idx.base, np.ndarray):
        prefetch(idx.base)  # read end to end: ask for it in large reads first
    return (part for part, _ in row_parts([idx.base, *idx.tail_blocks()], 0))


def _sample(idx: VectorIndex) -> np.ndarray:
    """Evenly spaced rows of ``idx`` (every one up to ``SAMPLE_ROWS``), to measure density."""
    step = max(1, len(idx) // SAMPLE_ROWS)
    return idx.rows_at(np.arange(0, len(idx), step)[:SAMPLE_ROWS])


def _map_rows(path: Path, n: int, dim: int, mode: str) -> np.ndarray:
    if n == 0:
        return np.zeros((0, dim), np.float32)
    return np.memmap(path, dtype=np.float32, mode=mode, shape=(n, dim))  # type: ignore[call-overload]


def load_vectors(
    d: Path, level: str, embedder: str, dim: int, with_ann: bool, n: int
) -> VectorIndex:
    """``level``'s vector index opened from snapshot ``d`` (its first ``n`` rows: a later
    snapshot may have appended to the same rows files)."""
    prefix = vector_prefix(level, embedder)
    raw = d / f"{prefix}rows.f32"
    rows: np.ndarray | SparseRows
    if sparse_rows.exists(d, prefix):
        rows = SparseRows.open(d, prefix, n, dim)
    elif raw.exists():
        rows = _map_rows(raw, n, dim, "c")
    else:  # format 1: one .npy per index
        rows = np.load(d / f"{prefix}rows.npy", mmap_mode="c")
    if isinstance(rows, np.ndarray):
        advise_random(rows)  # an exact scan prefetches them all
    graph = d / f"{prefix}hnsw.usearch"
    ann: VectorLists | Hnsw | None = None
    if with_ann and not exact_forced() and VectorLists.exists(d, prefix):
        ann = VectorLists.open(d, prefix, n)
    elif with_ann and graph.exists() and ann_available() is None:
        ann = Hnsw.open(graph, level)
    row_file = None
    if isinstance(rows, np.ndarray) and raw.exists() and n:
        # a search re-scores its few candidates by pread (base_rows)
        row_file = open(raw, "rb", buffering=0)  # noqa: SIM115 - closed with the index
        if hasattr(os, "posix_fadvise"):
            os.posix_fadvise(row_file.fileno(), 0, 0, os.POSIX_FADV_RANDOM)
    return VectorIndex(dim, base=rows, ids=_load_ids(d, prefix), ann=ann, row_file=row_file)


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
    if manifest.get("format") not in READABLE:
        return None
    return folder, manifest


@contextmanager
def snapshot_lock(root: Path, wait: bool = True) -> Iterator[bool]:
    """Held while a snapshot is written: an incremental save appends to a rows file it shares
    with the live snapshot, so two saves beside one database must take turns. Yields True once
    held; with ``wait=False`` it yields False at once, holding nothing, while another save
    holds it."""
    with open(root / ".lock", "a+b") as f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(f.fileno(), fcntl.LOCK_UN)


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
