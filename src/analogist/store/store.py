"""The SQLite store: the one way in and out of the database (no SQL elsewhere).

Every multi-row write runs in one transaction and validates before it writes, so an add that
fails for any reason leaves the store exactly as it was.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

import numpy as np

from analogist.episode import Episode
from analogist.errors import ConfigError, DuplicateEpisodeError, NotFoundError, StoreError
from analogist.signature.fingerprint import features_json
from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary, default_vocabulary
from analogist.store import episodes as ep_rows
from analogist.store import vector_blob
from analogist.store.bench import BenchRows
from analogist.store.calls import CallLog
from analogist.store.consolidation import ConsolidationRows
from analogist.store.db import Connection, Connections, transaction
from analogist.store.index_reads import IndexReads
from analogist.store.index_sync import IndexSync
from analogist.store.runs import RunLog
from analogist.store.schemas import SchemaRows
from analogist.store.vocab import load_vocabulary, save_vocabulary, term_counts

#: Adds of at least this many episodes write with the per-row index-state triggers off
#: (``IndexSync.appending``): below it the schema change costs more than the triggers.
BULK_MIN = 64
#: ... and drop and rebuild the secondary indexes when also at least as large as the memory.
BULK_INDEX_MIN = 2000


def vector_rows(
    keys: list[tuple[str, str, str, int]], values: list[np.ndarray]
) -> list[tuple[str, str, str, int, bytes]]:
    """sig_vectors rows: each key with its vector's stored form."""
    blobs = vector_blob.encode_rows(values)
    return [(*k, b) for k, b in zip(keys, blobs, strict=True)]


@dataclass(frozen=True)
class Derived:
    """Index rows computed from a signature at storage time, written with it atomically.

    Attributes:
        vectors: (level, embedder name, float32 vector) triples for sig_vectors.
        fingerprint: (wl_hash, wl_version, features) for sig_fingerprint, or None.
    """

    vectors: tuple[tuple[str, str, np.ndarray], ...] = ()
    fingerprint: tuple[str, str, Mapping[str, int]] | None = None


@dataclass
class AddReport:
    """What an add did: ids written, and (line or id, reason) for each rejection."""

    added: list[str] = field(default_factory=list)
    rejected: list[tuple[str, str]] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "added": self.added,
            "rejected": [{"where": w, "reason": r} for w, r in self.rejected],
        }


class Store(RunLog, BenchRows, SchemaRows, IndexReads, IndexSync, ConsolidationRows):
    """The SQLite backend of :class:`~analogist.store.interface.StoreInterface`: one database
    file holding memory, the analogy log, the model-call log and bench results.

    Episode, vocabulary and search operations are defined here; the analogy log, bench rows,
    schema library and index reads come from the mixins of :mod:`~analogist.store.runs`,
    :mod:`~analogist.store.bench`, :mod:`~analogist.store.schemas` and
    :mod:`~analogist.store.index_reads`. ``conn`` is SQLite-specific: nothing outside
    ``store/`` uses it (tests of the SQLite schema aside).

    Safe to share between threads: each thread gets its own connection (``conn``), writers wait
    for the lock with bounded backoff, and WAL readers are never blocked (see
    :mod:`analogist.store.db`).

    Args:
        path: the SQLite file (``":memory:"`` for a throwaway store).
        vocabulary: installed into a new store. An existing store keeps its own copy, so a
            different ``vocabulary`` is refused (ConfigError) rather than silently ignored.
    """

    def __init__(self, path: str | Path = ":memory:", vocabulary: Vocabulary | None = None):
        self.path = str(path)
        self._connections = Connections(self.path)
        try:
            self.vocabulary = self._install_vocabulary(vocabulary)
        except BaseException:
            self._connections.close()
            raise

    def _install_vocabulary(self, vocabulary: Vocabulary | None) -> Vocabulary:
        stored = load_vocabulary(self.conn)
        if len(stored) == 0:
            if self.read_only:
                return vocabulary or default_vocabulary()
            with transaction(self.conn):
                save_vocabulary(self.conn, vocabulary or default_vocabulary())
            return load_vocabulary(self.conn)
        if vocabulary is not None and tuple(vocabulary) != tuple(stored):
            raise ConfigError(
                f"database {self.path} already holds its own vocabulary ({len(stored)} terms), "
                "which differs from the one given; open it without vocabulary=, or replace "
                "the stored terms with Store.set_vocabulary"
            )
        return stored

    @property
    def conn(self) -> Connection:
        """This thread's connection to the database (SQLite backend only)."""
        return self._connections.get()

    @property
    def calls(self) -> CallLog:
        """The model-call log and cache (llm_calls)."""
        return CallLog(self)

    @property
    def read_only(self) -> str | None:
        """Why this store cannot be written (read-only file, newer schema), or None."""
        return self._connections.main.read_only

    def write_waits(self) -> list[float]:
        """Seconds each write transaction waited for the lock (all threads, newest 10,000 each)."""
        return self._connections.waits()

    def close(self) -> None:
        self._connections.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def transaction(self):
        """A transaction on this thread's connection (nested calls become savepoints)."""
        return transaction(self.conn)

    # vocabulary -----------------------------------------------------------
    def set_vocabulary(self, vocab: Vocabulary) -> None:
        """Replace the stored vocabulary's terms (counts kept); used by consolidation."""
        with transaction(self.conn):
            save_vocabulary(self.conn, vocab)
        self.vocabulary = load_vocabulary(self.conn)

    def vocab_counts(self) -> dict[str, int]:
        return term_counts(self.conn)

    # episodes -------------------------------------------------------------
    def add_episodes(
        self,
        episodes: Sequence[Episode],
        derived: Mapping[str, Derived] | None = None,
    ) -> list[str]:
        """Add validated episodes in one transaction; all or nothing.

        Raises:
            DuplicateEpisodeError: an id is already stored or repeated in the batch.
            StoreError: the write failed; nothing was changed.
        """
        return self.add_episode_chunks([(episodes, derived or {})], len(episodes))

    def add_episode_chunks(
        self, chunks: Iterable[tuple[Sequence[Episode], Mapping[str, Derived]]], expected: int
    ) -> list[str]:
        """Add validated episodes that arrive in chunks (with their index rows), all in one
        transaction; all or nothing. Each chunk is written before the next is asked for, so a
        generator of chunks holds one at a time: a load of a million episodes never has them
        all in memory. ``expected``, the episodes in all, picks the bulk path once (per-row
        triggers off from ``BULK_MIN``; secondary indexes rebuilt after a load at least as
        large as the memory). An exception raised by ``chunks`` rolls everything back and
        propagates unchanged.

        Raises:
            DuplicateEpisodeError: an id is already stored or repeated in the load.
            StoreError: the write failed; nothing was changed.
        """
        ids: list[str] = []
        seen: set[str] = set()

        def write() -> int:
            written = 0
            for episodes, derived in chunks:
                new = self._new_ids(episodes, seen)
                written += ep_rows.insert_episodes(self.conn, episodes)
                written += self._put_derived_many(
                    {e.id: derived[e.id] for e in episodes if e.id in derived}, fresh=True
                )
                ids.extend(new)
            return written

        try:
            with transaction(self.conn):
                if expected < BULK_MIN:
                    write()
                else:
                    self.appending(write, rebuild_indexes=self._small_beside(expected))
        except sqlite3.Error as e:
            raise StoreError(
                f"adding {max(expected, len(ids))} episode(s) failed, nothing was stored: {e}"
            ) from None
        return ids

    def _new_ids(self, episodes: Sequence[Episode], seen: set[str]) -> list[str]:
        """The ids of ``episodes``, checked to be new: not repeated within the load (``seen``
        holds the earlier chunks' ids and takes these) and not already stored."""
        ids = [e.id for e in episodes]
        dup = {i for i, n in Counter(ids).items() if n > 1} | seen.intersection(ids)
        if dup:
            raise DuplicateEpisodeError(f"episode {min(dup)}: id appears twice in this batch")
        taken = ep_rows.existing_ids(self.conn, ids)
        if taken:
            raise DuplicateEpisodeError(
                f"episode {min(taken)}: id is already stored; delete it first "
                "(`analogist delete ID`) or choose a new id"
            )
        seen.update(ids)
        return ids

    def _small_beside(self, n: int) -> bool:
        """Is a load of ``n`` episodes at least as large as the memory it goes into (then
        building the secondary indexes once afterwards is cheaper than updating them per row)?"""
        if n < BULK_INDEX_MIN:
            return False
        top = self.conn.execute("SELECT MAX(rowid) FROM episodes").fetchone()[0]
        return int(top or 0) <= n

    def _put_derived_many(self, derived: Mapping[str, Derived], fresh: bool = False) -> int:
        """Write index rows and return how many; ``fresh``: the episodes were just inserted, so
        no row can exist and a plain INSERT does (cheaper than INSERT OR REPLACE's conflict
        handling). A fingerprint's features shared by several episodes (the memory derives
        each distinct structure once) are serialised once."""
        verb = "INSERT" if fresh else "INSERT OR REPLACE"
        keys, values, prints, feats_json = [], [], [], dict[int, str]()
        for eid, d in derived.items():
            for level, embedder, vec in d.vectors:
                keys.append((eid, level, embedder, int(np.shape(vec)[0])))
                values.append(vec)
            if d.fingerprint is not None:
                wl_hash, version, feats = d.fingerprint
                text = feats_json.get(id(feats))
                if text is None:
                    text = feats_json[id(feats)] = features_json(feats)
                prints.append((eid, wl_hash, version, text))
        self._write_vectors(verb, keys, values)
        self.conn.executemany(
            f"{verb} INTO sig_fingerprint (episode_id, wl_hash, wl_version, "
            "features_json) VALUES (?, ?, ?, ?)",
            prints,
        )
        return len(keys) + len(prints)

    def _write_vectors(
        self, verb: str, keys: list[tuple[str, str, str, int]], values: list[np.ndarray]
    ) -> None:
        """Write sig_vectors rows: each key (episode_id, level, embedder, dim) with its vector
        in the stored form (:mod:`~analogist.store.vector_blob`)."""
        self.conn.executemany(
            f"{verb} INTO sig_vectors (episode_id, level, embedder, dim, vector) "
            "VALUES (?, ?, ?, ?, ?)",
            vector_rows(keys, values),
        )

    def put_derived(self, derived: Mapping[str, Derived]) -> None:
        """(Re)write index rows for stored episodes, in one transaction."""
        missing = set(derived) - ep_rows.existing_ids(self.conn, derived)
        if missing:
            raise NotFoundError(f"episode {min(missing)} is not stored")
        with transaction(self.conn):
            self._put_derived_many(derived)

    def set_signature(self, sig: Signature) -> None:
        """Attach or replace the signature of a stored episode."""
        if not ep_rows.existing_ids(self.conn, [sig.episode_id]):
            raise NotFoundError(f"episode {sig.episode_id} is not stored; add it first")
        with transaction(self.conn):
            ep_rows.put_signature(self.conn, sig)

    def get_episode(self, episode_id: str) -> Episode:
        row = self.conn.execute(
            ep_rows.EPISODE_SELECT + " WHERE e.id = ?", (episode_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(f"episode {episode_id!r} is not stored; `analogist list` shows ids")
        return ep_rows.row_to_episode(row, self.vocabulary)

    def has_episode(self, episode_id: str) -> bool:
        return bool(ep_rows.existing_ids(self.conn, [episode_id]))

    def get_signature(self, episode_id: str) -> Signature:
        ep = self.get_episode(episode_id)
        if ep.signature is None:
            raise NotFoundError(f"episode {episode_id} has no signature yet")
        return ep.signature

    def signature_json(self, episode_id: str) -> dict:
        """The signature exactly as stored."""
        raw = ep_rows.get_signature_json(self.conn, episode_id)
        if raw is None:
            self.get_episode(episode_id)
            raise NotFoundError(f"episode {episode_id} has no signature yet")
        return raw

    def list_episodes(self, kind: str | None = None, domain: str | None = None) -> list[Episode]:
        q, args = ep_rows.EPISODE_SELECT + " WHERE 1=1", list[str]()
        if kind:
            q, args = q + " AND e.kind = ?", args + [kind]
        if domain:
            q, args = q + " AND s.domain = ?", args + [domain]
        rows = self.conn.execute(q + " ORDER BY e.rowid", args).fetchall()
        return [ep_rows.row_to_episode(r, self.vocabulary) for r in rows]

    def episode_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM episodes ORDER BY rowid")]

    def count(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM episodes").fetchone()[0]

    def delete_episodes(self, ids: Iterable[str]) -> None:
        """Delete episodes with everything derived from them; unknown ids change nothing."""
        ids = list(ids)
        missing = set(ids) - ep_rows.existing_ids(self.conn, ids)
        if missing:
            raise NotFoundError(f"episode {min(missing)!r} is not stored; nothing was deleted")
        with transaction(self.conn):
            for eid in ids:
                ep_rows.delete_signature(self.conn, eid)
                self.conn.execute("DELETE FROM episodes_fts WHERE id = ?", (eid,))
                self.conn.execute("DELETE FROM episodes WHERE id = ?", (eid,))

    # summaries --------------------------------------------------------------
    def summary(self) -> dict:
        """Episodes by domain and kind, and relation usage (for `analogist demo` and `list`)."""
        by = self.conn.execute(
            "SELECT COALESCE(s.domain, '') AS domain, e.kind, COUNT(*) FROM episodes e "
            "LEFT JOIN signatures s ON s.episode_id = e.id GROUP BY 1, 2 ORDER BY 1, 2"
        ).fetchall()
        signed = self.conn.execute("SELECT COUNT(*) FROM signatures").fetchone()[0]
        return {
            "episodes": self.count(),
            "signed": signed,
            "by_domain_kind": [
                {"domain": d or "(unsigned)", "kind": k, "count": n} for d, k, n in by
            ],
            "relation_usage": {
                t: n for t, n in sorted(self.vocab_counts().items(), key=lambda x: -x[1]) if n
            },
        }

    # index reads used by retrieval channels ---------------------------------------
    def vectors(self, level: str, embedder: str) -> tuple[list[str], np.ndarray]:
        """All stored vectors of one level and embedder, as ids and an (n, dim) matrix."""
        rows = self.conn.execute(
            "SELECT episode_id, dim, vector FROM sig_vectors WHERE level = ? AND embedder = ? "
            "ORDER BY rowid",
            (level, embedder),
        ).fetchall()
        if not rows:
            return [], np.zeros((0, 0), dtype=np.float32)
        return [r[0] for r in rows], vector_blob.decode_rows([r[2] for r in rows], rows[0][1])

    def has_vectors(self, level: str, embedder: str) -> bool:
        """Is any vector of this level and embedder stored?"""
        row = self.conn.execute(
            "SELECT 1 FROM sig_vectors WHERE level = ? AND embedder = ? LIMIT 1", (level, embedder)
        ).fetchone()
        return row is not None

    def vector_search_missing(self) -> str | None:
        """None when the database itself can rank vectors (:meth:`search_vectors`), else why
        not (one line). SQLite cannot: its vectors are searched by the local index."""
        return "SQLite has no in-database vector index (pgvector is a PostgreSQL extension)"

    def search_vectors(
        self,
        level: str,
        embedder: str,
        query: np.ndarray,
        k: int,
        *,
        exclude: frozenset[str] = frozenset(),
        exact: bool = False,
        ef_search: int = 800,
    ) -> list[tuple[str, float]]:
        """The ``k`` stored vectors most similar to ``query`` (cosine), best first, ranked by
        the database (approximate unless ``exact``); ConfigError where it cannot
        (:meth:`vector_search_missing`)."""
        raise ConfigError(f"in-database vector search: {self.vector_search_missing()}")

    def fingerprints(self) -> list[tuple[str, str, dict]]:
        return [
            (r[0], r[1], json.loads(r[2]))
            for r in self.conn.execute(
                "SELECT episode_id, wl_hash, features_json FROM sig_fingerprint ORDER BY rowid"
            )
        ]

    def bm25(self, query: str, limit: int = 50) -> list[tuple[str, float]]:
        """Lexical search over L0 text with FTS5 bm25 (lower is better; negated here)."""
        terms = [w for w in "".join(c if c.isalnum() else " " for c in query.lower()).split() if w]
        if not terms:
            return []
        match = " OR ".join(f'"{w}"' for w in terms)
        rows = self.conn.execute(
            "SELECT id, bm25(episodes_fts) FROM episodes_fts WHERE episodes_fts MATCH ? "
            "ORDER BY bm25(episodes_fts) LIMIT ?",
            (match, limit),
        ).fetchall()
        return [(r[0], -float(r[1])) for r in rows]
