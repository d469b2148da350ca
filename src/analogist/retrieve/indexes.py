"""The indexes every channel reads: opened from a snapshot beside the database, kept current.

One :class:`Indexes` object belongs to a :class:`~analogist.memory.Memory`. Each index is
opened the first time a channel needs it — memory-mapped from the live snapshot
(:mod:`analogist.retrieve.persist`) when that is still valid for the database, then caught up
with the rows added since; else built from the store (streamed in chunks) — and updated
incrementally when the memory adds episodes, so a query never touches SQLite except for FTS5
(M.bm25) and the small schemas table. Vector indexes are cached per (level, embedder name).
A change behind the memory's back (another connection's commit) is noticed through
:meth:`~analogist.store.StoreInterface.change_marker`: appends are folded in, a delete or
replacement drops the indexes. :meth:`Indexes.save` writes a new snapshot
(``Memory.close`` does when enough is new).
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from analogist.collector import collector_paused
from analogist.episode import Episode
from analogist.errors import AnalogistError, ConfigError
from analogist.models.embedding import Embedder
from analogist.retrieve.ann import available as ann_available
from analogist.retrieve.ann import (
    exact_forced,
    expansion_search,
    expansion_search_text,
    vector_search_choice,
)
from analogist.retrieve.dense import ServerVectorIndex, VectorIndex
from analogist.retrieve.mac import MacIndex, mac_features
from analogist.retrieve.persist import (
    FORMAT,
    current_snapshot,
    load_fingerprints,
    load_mac,
    load_vectors,
    publish,
    save_fingerprints,
    save_mac,
    save_vectors,
    snapshot_lock,
    snapshot_root,
)
from analogist.retrieve.provenance import DerivativeIndex
from analogist.retrieve.schemas import SchemaLibrary, parse_schema
from analogist.retrieve.vector_lists import vector_index_choice
from analogist.retrieve.wl import FingerprintIndex
from analogist.signature.fingerprint import (
    Fingerprint,
    WLFingerprint,
    commutative_terms,
)
from analogist.signature.model import Signature, parse_signature
from analogist.store import Derived, Store
from analogist.store.index_sync import IndexState
from analogist.store.pg_vectors import MAX_EF_SEARCH
from analogist.store.pg_vectors import build_params as pg_build_params
from analogist.store.postgres import is_postgres_url

LEVELS = ("L0", "L2", "L3")

#: Rows a save folds into each index from the database before it writes a snapshot and goes on
#: (:meth:`Indexes.save`): an index's unsaved rows live in RAM (~1.6 GB per 250,000 with the
#: three vector levels' dense tail blocks), so catching up a large memory from its database in
#: one go — a cold ``analogist add`` of millions of lines, then a save — would need all of them.
CATCH_UP_STEP = 250_000

#: When :meth:`Indexes.save_if_worthwhile` saves: once the next open would fold in at least
#: SAVE_MIN episodes from the database and either 5% of the memory or SAVE_AFTER of them. Every
#: process that opens the memory folds them in again — ~115 µs of CPU each at 1M with every
#: index, so ~0.6 s at SAVE_AFTER — while saving them costs ~1.3–2 s once at 1M
#: (``docs/performance.md``, "One-shot processes keep the snapshot current").
SAVE_MIN = 1_000
SAVE_AFTER = 5_000


#: One level's embeddings of a batch: the episode ids and their rows as one matrix.
LevelRows = tuple[list[str], np.ndarray]


class Indexes:
    """Lazily built S0/S1/S2/M/S3 indexes over one store.

    Args:
        store: the store to read.
        embedder: the embedder whose stored vectors S2 and M.emb search.
        wl: the fingerprint algorithm (its version selects which stored fingerprints count).
        persist: open and write snapshots beside the database (default: yes for a file
            database, unless ``ANALOGIST_PERSIST_INDEXES=0``).
        exact_vectors: scan every vector instead of asking the HNSW graph.

    Vector search (S2, M.emb; :attr:`vector_search` says which is in use): by the database
    when the store can rank vectors itself (PostgreSQL with pgvector) and
    ``ANALOGIST_VECTOR_SEARCH`` is ``auto`` (default) or ``pgvector``, else by the local index
    (HNSW graph in the snapshot, or exact). ``pgvector`` on a store that cannot is a
    ConfigError (one line), never a silent fallback.
    """

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        wl: WLFingerprint | None = None,
        *,
        persist: bool | None = None,
        exact_vectors: bool = False,
    ):
        self.store = store
        if persist is None:
            persist = os.environ.get("ANALOGIST_PERSIST_INDEXES", "1") != "0"
        self.root = snapshot_root(store.path) if persist else None
        self.exact_vectors = exact_vectors
        choice, missing = vector_search_choice(), store.vector_search_missing()
        if choice == "pgvector" and missing is not None:
            raise ConfigError(f"ANALOGIST_VECTOR_SEARCH=pgvector: {missing}")
        self.in_database = choice != "local" and missing is None
        self._server: dict[tuple[str, str], ServerVectorIndex] = {}
        self.rebuilt: list[str] = []
        self._covered: dict[str, int] = {}
        self._fold_budget: dict[str, int] | None = None  # rows each index may still fold now
        self._source: dict[str, Path] = {}  # the snapshot folder each index's base was opened from
        self._lock_owner: int | None = None  # the thread whose save_if_worthwhile holds the lock
        self._state: IndexState | None = None
        self.embedder = embedder
        self.wl = wl or WLFingerprint()
        self._fp: FingerprintIndex | None = None
        self._mac: MacIndex | None = None
        self._vectors: dict[tuple[str, str], VectorIndex] = {}
        self._schemas: SchemaLibrary | None = None
        self._schemas_state: tuple | None = None
        self._derivatives: DerivativeIndex | None = None
        self._marker = store.change_marker()

    @property
    def commutative(self) -> frozenset[str]:
        return commutative_terms(self.store.vocabulary)

    def fingerprint(self, sig: Signature) -> Fingerprint:
        return self.wl(sig, self.store.vocabulary)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.embedder.embed(list(texts))

    # lazily built (or opened) indexes --------------------------------------------------
    def fingerprints(self) -> FingerprintIndex:
        if self._fp is None:
            self._fp = self._open(
                "fp",
                lambda d, _e: load_fingerprints(d, self.wl.version),
                lambda: FingerprintIndex(self.wl.version),
            )
        return self._fp

    def mac(self) -> MacIndex:
        if self._mac is None:
            self._mac = self._open("mac", lambda d, _e: load_mac(d), MacIndex)
        return self._mac

    @property
    def vector_search(self) -> str:
        """Which vector search S2 and M.emb use, in one line (what ``analogist info`` shows)."""
        exact = self.exact_vectors or exact_forced()
        if self.in_database:
            if exact:
                return "pgvector exact (the database scans every row)"
            m, efc = pg_build_params()
            return (
                "pgvector HNSW in the database (hnsw.ef_search "
                f"{expansion_search_text(LEVELS, MAX_EF_SEARCH)}; graphs built from now on: m {m}, "
                f"ef_construction {efc})"
            )
        missing = self.store.vector_search_missing()
        on_pg = is_postgres_url(self.store.path)
        also = f"; pgvector not used: {missing}" if on_pg and missing else ""
        if self.exact_vectors or exact_forced():
            why = "exact_vectors is set" if self.exact_vectors else "ANALOGIST_EXACT_VECTORS is set"
            return f"exact scan in this process ({why}){also}"
        return f"local, per level: {self._local_vector_kinds()}{also}"

    def _local_vector_kinds(self) -> str:
        """What each level's local vector search uses, from the live snapshot's manifest (what
        :func:`~analogist.retrieve.persist.load_vectors` opens), and what a new snapshot gets."""
        snap = current_snapshot(self.root)
        no_graph = ann_available()
        kinds = []
        for lv in LEVELS:
            entry = snap[1]["indexes"].get(f"vec:{lv}:{self.embedder.name}") if snap else None
            if entry and entry.get("lists"):
                parts = int(entry.get("lists_segments", 1))
                more = f"; {parts} segments, as incremental saves added them" if parts > 1 else ""
                kinds.append(f"{lv} per-dimension lists (exact{more})")
            elif entry and entry.get("hnsw") and no_graph is None:
                kinds.append(f"{lv} HNSW graph (usearch, ef_search {expansion_search(lv)})")
            elif entry and entry.get("hnsw"):
                kinds.append(f"{lv} exact scan (its HNSW graph unused: {no_graph})")
            else:
                kinds.append(f"{lv} exact scan (no snapshot index yet)")
        choice = vector_index_choice()
        new = {
            "auto": "lists for sparse rows, HNSW for dense ones",
            "lists": "lists",
            "hnsw": "HNSW" if no_graph is None else f"HNSW, unavailable: {no_graph}",
        }[choice]
        return (
            f"{'; '.join(kinds)}; rows not yet in a snapshot scanned exactly; "
            f"new snapshots: {new} (ANALOGIST_VECTOR_INDEX={choice})"
        )

    def vectors(self, level: str) -> VectorIndex | ServerVectorIndex:
        key = (level, self.embedder.name)
        if self.in_database:
            server = self._server.get(key)
            if server is None:
                server = self._server[key] = ServerVectorIndex(self.store, level, key[1])
            server.exact = self.exact_vectors or exact_forced()
            return server
        if key not in self._vectors:
            name, dim = self.embedder.name, self.embedder.dim
            idx = self._open(
                f"vec:{level}:{name}",
                lambda d, e: load_vectors(d, level, name, dim, not self.exact_vectors, int(e["n"])),
                lambda: VectorIndex(dim),
            )
            idx.exact = self.exact_vectors
            self._vectors[key] = idx
        return self._vectors[key]

    def _open(self, key: str, load: Callable[[Path, dict], Any], empty: Callable[[], Any]) -> Any:
        """The index ``key`` from the live snapshot when it is still valid for the database,
        else empty; then caught up with every source row past what it covers."""
        with self.store.read_snapshot():
            state = self.store.index_state()
            snap = current_snapshot(self.root) if state.generation >= 0 else None
            idx: Any = None
            covered = 0
            entry = snap[1]["indexes"].get(key) if snap else None
            if snap and entry is not None:
                why = self._invalid(snap[1], state)
                if why is None:
                    try:
                        idx, covered = load(snap[0], entry), int(entry["rowid"])
                    except (OSError, ValueError) as e:  # a damaged file: the database has all
                        why = f"a file cannot be read: {e}"
                if why is None:
                    self._source[key] = snap[0]
                    if key == "fp":
                        idx.stale = int(entry.get("stale", 0))
                else:
                    idx, covered = None, 0
                    warnings.warn(
                        f"analogist: persisted index {key} at {snap[0]} is out of step "
                        f"with the database ({why}); rebuilding it from the database",
                        RuntimeWarning,
                        stacklevel=3,
                    )
                    self.rebuilt.append(key)
            idx = empty() if idx is None else idx
            self._covered[key] = self._catch_up(key, idx, covered)
            self._state = state
        return idx

    def _invalid(self, manifest: dict, state: IndexState) -> str | None:
        if manifest["rebuilds"] != state.rebuilds:
            return "episodes were deleted or index rows replaced since it was written"
        if manifest["generation"] > state.generation:
            return "it is newer than the database (a restored or replaced database file?)"
        if manifest.get("wl_version") != self.wl.version:
            return f"written for WL {manifest.get('wl_version')}, this is {self.wl.version}"
        return None

    def _catch_up(self, key: str, idx: Any, rowid: int) -> int:
        """Fold source rows past ``rowid`` into ``idx`` (ids already present are skipped: a
        replacement would have counted as a rebuild); return the last rowid read. Runs with
        the garbage collector paused, as a bulk add does (:mod:`analogist.collector`)."""
        with collector_paused():
            return self._fold_rows(key, idx, rowid)

    def _fold_rows(self, key: str, idx: Any, rowid: int) -> int:
        """Fold source rows past ``rowid`` in chunks; stop after a chunk once this index's
        share of ``_fold_budget`` (set by :meth:`save`) is spent. Only rows folded in count
        against it: rows the index holds already (added in this process) take no RAM, and
        counting them made a save after a million in-process adds write four snapshots."""
        if self._fold_budget is not None and self._fold_budget.get(key, CATCH_UP_STEP) <= 0:
            return rowid
        held = idx.ids.held  # rows an index folded in as they were added are not parsed again
        if key == "fp":
            for end, rows in self.store.fingerprints_after(rowid, held=held):
                rowid = end
                now = [(e, h, f) for e, h, version, f in rows if version == idx.version]
                idx.stale += len(rows) - len(now)
                idx.add_many(now)
                if self._spend(key, len(now)):
                    break
        elif key == "mac":
            vocab, comm = self.store.vocabulary, self.commutative
            for end, sigs in self.store.signatures_after(rowid, held=held):
                rowid = end
                idx.add_many(
                    [(e, mac_features(parse_signature(raw, vocab), comm)) for e, raw in sigs]
                )
                if self._spend(key, len(sigs)):
                    break
        else:
            _, level, name = key.split(":", 2)
            for end, ids, mat in self.store.vectors_after(rowid, level, name, held=held):
                rowid = end
                if ids:
                    idx.add(ids, mat)
                if self._spend(key, len(ids)):
                    break
        return rowid

    def _spend(self, key: str, rows: int) -> bool:
        """Count ``rows`` folded into ``key``; True when its budget is spent (it is then left
        behind the database until the next round of :meth:`save`)."""
        if self._fold_budget is None:
            return False
        left = self._fold_budget[key] = self._fold_budget.get(key, CATCH_UP_STEP) - rows
        return left <= 0

    def catch_up(self) -> None:
        """Bring every built index up to the database: appends are folded in; a delete or
        replacement since (another rebuild count) drops them all, to be rebuilt on next use."""
        with self.store.read_snapshot():
            state = self.store.index_state()
            if self._state is not None and state.rebuilds != self._state.rebuilds:
                self.invalidate()
                return
            built: dict[str, Any] = {"fp": self._fp, "mac": self._mac}
            built.update({f"vec:{lv}:{n}": v for (lv, n), v in self._vectors.items()})
            for key, idx in built.items():
                if idx is not None:
                    self._covered[key] = self._catch_up(key, idx, self._covered.get(key, 0))
            self._state = state
        self.mark_current()

    # persisting ------------------------------------------------------------------------
    def save(self, *, full: bool = False) -> Path | None:
        """Write every standard index (S0, S1, L0/L2/L3 vectors of this embedder) as a new
        snapshot beside the database and make it the live one; None for an in-memory store.

        Incremental by default: a vector index whose base was opened from the live snapshot
        keeps that snapshot's rows file (hard-linked, the new rows appended) and HNSW graph
        (read back, only the new rows inserted); postings and id tables are merged in linear
        time. ``full=True`` rewrites every file, rebuilds every graph and decides again between lists
        and a graph for each vector level. Afterwards the
        indexes are reopened from the new snapshot, so the in-memory tail is released and the
        next save is incremental again. Saves beside one database take turns (a file lock).

        Rows the indexes have not seen yet (a cold ``analogist add``, another process's
        writes) are folded in at most :data:`CATCH_UP_STEP` per index at a time, with an
        incremental snapshot written after each step, so a save holds at most that many rows
        per index in RAM however far behind the database it starts. Should a step fail, the
        indexes are dropped (reopened and caught up when next used).
        """
        if self.root is None:
            return None
        try:
            while True:  # catch up at most CATCH_UP_STEP rows per index, save, go on
                self._fold_budget = {}
                self.fingerprints(), self.mac(), [self.vectors(lv) for lv in LEVELS]
                self.catch_up()
                if all(left > 0 for left in self._fold_budget.values()):
                    break  # no index spent its step: every one reached the database
                if self._write_snapshot(full=False) is None:  # nothing can be saved here:
                    self._fold_budget = None  # catch up in one go, as without a budget
                    self.catch_up()
                    break
        except BaseException:
            self.invalidate()  # some indexes may stop short of the database: reopened when used
            raise
        finally:
            self._fold_budget = None
        return self._write_snapshot(full)

    def _write_snapshot(self, full: bool) -> Path | None:
        """Write the indexes as they are as a new live snapshot and reopen them from it."""
        assert self.root is not None
        if (
            self._state is None
            or self._fp is None
            or self._mac is None
            or self._state.generation < 0
        ):
            return None
        state = self._state
        self.root.mkdir(parents=True, exist_ok=True)
        held = self._lock_owner == threading.get_ident()  # by save_if_worthwhile, for its save
        with nullcontext() if held else snapshot_lock(self.root):
            live = current_snapshot(self.root)
            tmp = self.root / f".tmp-{state.generation}-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            entries: dict[str, dict] = {}
            fields = save_fingerprints(tmp, self._fp, None if full else self._kept("fp", live))
            entries["fp"] = {
                "rowid": self._covered["fp"],
                "n": len(self._fp),
                "stale": self._fp.stale,
                **fields,
            }
            fields = save_mac(tmp, self._mac, None if full else self._kept("mac", live))
            entries["mac"] = {"rowid": self._covered["mac"], "n": len(self._mac), **fields}
            for (level, name), idx in self._vectors.items():
                key = f"vec:{level}:{name}"
                base_from = None if full else self._reusable(key, idx, live)
                fields = save_vectors(tmp, idx, level, name, base_from)
                entries[key] = {"rowid": self._covered[key], "n": len(idx), **fields}
            folder = self.root / f"{state.generation}-{os.getpid()}-{time.time_ns()}"
            shutil.rmtree(folder, ignore_errors=True)
            os.rename(tmp, folder)
            publish(
                self.root,
                folder,
                {
                    "format": FORMAT,
                    "generation": state.generation,
                    "rebuilds": state.rebuilds,
                    "wl_version": self.wl.version,
                    "indexes": entries,
                },
            )
        self._reopen(folder, entries)
        return folder

    def _kept(self, key: str, live: tuple[Path, dict] | None) -> Path | None:
        """The live snapshot's folder when index ``key`` (S0 or S1) was opened from it: its
        postings' base is that snapshot's files, unchanged (only the tail grows in RAM)."""
        if live is None or self._source.get(key) != live[0]:
            return None
        return live[0]

    def _reusable(self, key: str, idx: VectorIndex, live: tuple[Path, dict] | None) -> Path | None:
        """The live snapshot's folder when ``idx``'s base is that snapshot's rows, unchanged."""
        folder = self._kept(key, live)
        if folder is None or live is None or idx.replaced or not len(idx.base):
            return None
        entry = live[1]["indexes"].get(key)
        return folder if entry is not None and int(entry["n"]) == len(idx.base) else None

    def _reopen(self, folder: Path, entries: dict[str, dict]) -> None:
        """Swap every saved index for its memory-mapped form in ``folder`` (an empty tail)."""
        stale = self._fp.stale if self._fp is not None else 0
        self._fp = load_fingerprints(folder, self.wl.version)
        self._fp.stale = stale
        self._mac = load_mac(folder)
        for (level, name), old in list(self._vectors.items()):
            new = load_vectors(folder, level, name, old.dim, not self.exact_vectors, len(old))
            new.exact = old.exact
            self._vectors[(level, name)] = new
        self._source = {key: folder for key in entries}

    def behind(self) -> tuple[int, int]:
        """(episodes a process opening this memory now would fold in from the database,
        episodes in all): the signature rows past the live snapshot's S1 index, or all of them
        when there is no snapshot this database can use. Read from the database and the
        snapshot's manifest, so it counts another process's writes and this one's alike."""
        behind, total, _ = self._behind()
        return behind, total

    def _behind(self) -> tuple[int, int, tuple[Path, dict] | None]:
        """:meth:`behind`, and the live snapshot it was read against (None when none)."""
        if self.root is None:
            return 0, 0, None
        state = self.store.index_state()
        total = state.top_rowid.get("signatures", 0)
        live = current_snapshot(self.root) if state.generation >= 0 else None
        entry = live[1]["indexes"].get("mac") if live else None
        if live is None or entry is None or self._invalid(live[1], state) is not None:
            return total, total, live
        return max(0, total - int(entry["rowid"])), total, live

    def save_if_worthwhile(self) -> Path | None:
        """Save when the next open would otherwise fold in at least :data:`SAVE_MIN` episodes
        from the database and either 5% of the memory or :data:`SAVE_AFTER` of them
        (:meth:`behind`), so small additions never pay for a rewrite and no open pays for more
        than ``SAVE_AFTER``. Skipped, with nothing written, when the live snapshot holds vector
        indexes of another embedder — a snapshot holds one embedder's, and this save would drop
        those (``analogist index`` with the memory's embedder writes a full one) — and while
        another process is writing a snapshot (several one-shot processes ending at once would
        otherwise each write one). The count is taken again once the snapshot lock is held, so
        a save that ended in between is not repeated; indexes opened from an older snapshot
        than the live one are reopened from it first, so the save writes a delta, not every
        posting."""
        if self.root is None or self.store.read_only or not self._worth_saving()[0]:
            return None
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            with snapshot_lock(self.root, wait=False) as held:
                if not held:
                    return None  # another process is saving: its snapshot takes most of it
                worth, live = self._worth_saving()
                if not worth:
                    return None
                if live is not None and any(f != live[0] for f in self._source.values()):
                    self.invalidate()
                self._lock_owner = threading.get_ident()
                try:
                    return self.save()
                finally:
                    self._lock_owner = None
        except OSError as e:
            warnings.warn(
                f"analogist: could not write the index snapshot in {self.root} ({e}); "
                "the next open catches up from the database instead",
                RuntimeWarning,
                stacklevel=2,
            )
            return None

    def _worth_saving(self) -> tuple[bool, tuple[Path, dict] | None]:
        """(should :meth:`save_if_worthwhile` save now — the count and the embedder check —,
        the live snapshot it was read against)."""
        behind, total, live = self._behind()
        if behind < max(SAVE_MIN, min(total // 20, SAVE_AFTER)):
            return False, live
        names = {k.split(":", 2)[2] for k in (live[1]["indexes"] if live else ()) if ":" in k}
        return not names - {self.embedder.name}, live

    def schemas(self) -> SchemaLibrary:
        state = self.store.schemas_state()
        if self._schemas is None or state != self._schemas_state:
            lib, comm = SchemaLibrary(), self.commutative
            for row in self.store.list_schemas():
                try:
                    schema = parse_schema(
                        row.schema_json,
                        row.members,
                        self.store.vocabulary,
                        times_used=row.times_used,
                        times_verified=row.times_verified,
                    )
                except AnalogistError as e:
                    lib.invalid.append((row.schema_id, str(e)))
                    continue
                lib.add(schema, comm)
            self._schemas, self._schemas_state = lib, state
        return self._schemas

    def derivatives(self) -> DerivativeIndex:
        if self._derivatives is None:
            self._derivatives = DerivativeIndex(self.store.iter_provenance())
        return self._derivatives

    # keeping them current ---------------------------------------------------------
    def on_add(
        self,
        episodes: Sequence[Episode],
        derived: Mapping[str, Derived],
        mac: Mapping[str, Counter] | None,
        matrices: Mapping[tuple[str, str], LevelRows],
    ) -> None:
        """Fold newly stored episodes into every index already built (``mac``: their MAC
        vectors when already computed; ``matrices``: each (level, embedder)'s embeddings of
        them as one matrix with its ids, as ``Memory`` embedded them: the vector indexes
        copy the matrix in, instead of stacking ``derived``'s rows again)."""
        if self._fp is not None:
            version = self._fp.version
            self._fp.add_many(
                [
                    (eid, d.fingerprint[0], d.fingerprint[2])
                    for eid, d in derived.items()
                    if d.fingerprint is not None and d.fingerprint[1] == version
                ]
            )
        if self._mac is not None:
            comm = self.commutative
            vecs = []
            for ep in episodes:
                if ep.signature is not None:
                    vec = mac.get(ep.id) if mac else None
                    vecs.append(
                        (ep.id, vec if vec is not None else mac_features(ep.signature, comm))
                    )
            self._mac.add_many(vecs)
        for key, idx in self._vectors.items():
            given = matrices.get(key)
            if given is not None:
                idx.add(*given)
        if self._derivatives is not None:
            for ep in episodes:
                self._derivatives.add(ep.id, ep.provenance)
        self.mark_current()

    def mark_current(self) -> None:
        """Take the store as it is now as seen: its changes are in the indexes (folded in or
        caught up; a chunked add folds each chunk before its commit) or the indexes dropped."""
        self._marker = self.store.change_marker()

    def invalidate(self) -> None:
        """Drop every cached index; each is reopened (snapshot, if still valid) or rebuilt from
        the store when next needed."""
        self._fp = self._mac = self._schemas = self._derivatives = None
        self._schemas_state = None
        self._vectors.clear()
        self._covered.clear()
        self._source.clear()
        self._state = None
        self.mark_current()

    def refresh_if_changed(self) -> bool:
        """Catch up when the store changed behind this object (appends are folded in, anything
        else drops the indexes); True if it had changed."""
        if self.store.change_marker() != self._marker:
            self._schemas = self._derivatives = None
            self._schemas_state = None
            self.catch_up()
            return True
        return False
