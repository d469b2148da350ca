"""The PostgreSQL backend of :class:`~analogist.store.interface.StoreInterface`, chosen by a
``postgresql://`` URL (``--db``, ``ANALOGIST_DB``, ``Memory("postgresql://...")``).

It is the SQLite :class:`~analogist.store.Store` with a different connection: the same row
mixins run over :class:`~analogist.store.pg_conn.PgConnection` (which rewrites their few SQLite
spellings), the schema comes from :mod:`~analogist.store.pg_migrations` (same migration names),
and only what has no common spelling is overridden here: lexical search (``tsvector`` /
``ts_rank_cd`` instead of FTS5 bm25), the change marker, the index state and read snapshots.

Vectors are stored as ``BYTEA`` (float32, as on SQLite) and, where the server offers pgvector,
also as ``sig_vectors.embedding vector`` written in the same statement, with one partial HNSW
index per (level, embedder) pair (:mod:`~analogist.store.pg_vectors`; migration
``0005_vector_search``). S2 and M.emb then ask the server (:meth:`PostgresStore.search_vectors`,
``ORDER BY embedding <=> q LIMIT k`` with ``hnsw.ef_search`` from ``ANALOGIST_HNSW_EF``, or an
exact scan); without pgvector they search the local persisted graph (``retrieve/ann.py``,
``retrieve/persist.py``) as on SQLite. :attr:`~analogist.retrieve.indexes.Indexes.vector_search`
(``analogist info``) says which (docs/scale.md, "PostgreSQL backend").
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

from analogist.episode import Episode
from analogist.errors import ConfigError, StoreError
from analogist.signature.vocabulary import Vocabulary
from analogist.store import pg_vectors, vector_blob
from analogist.store.db import utcnow
from analogist.store.index_sync import SOURCES
from analogist.store.pg_migrations import PG_MIGRATIONS
from analogist.store.store import Derived, Store, vector_rows

SCHEMES = ("postgresql://", "postgres://")
_MIGRATION_LOCK = 7_216_100  # pg_advisory_lock key: one process migrates at a time
VECTOR_MIGRATION = "0005_vector_search"
#: Rows a chunked load writes before its first ``ANALYZE`` (see ``add_episode_chunks``).
ANALYZE_AFTER = 10_000


def is_postgres_url(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(SCHEMES)


def _redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = (f"{parts.username}@" if parts.username else "") + host
    netloc += f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _check_url(url: str) -> None:
    """ConfigError (one line) for a URL psycopg could never use."""
    parts = urlsplit(url)
    try:
        parts.port  # noqa: B018 - a malformed port raises here
    except ValueError as e:
        raise ConfigError(
            f"--db {parts.scheme}://{parts.hostname or ''}...: {e}; use "
            "postgresql://USER@HOST:PORT/DBNAME"
        ) from None
    if not parts.hostname and "host=" not in parts.query:
        raise ConfigError(
            f"--db {url.split('@')[-1]}: no host; use postgresql://USER@HOST:PORT/DBNAME"
        )


def _connect(url: str) -> Any:
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            "a postgresql:// database needs psycopg; install it with "
            "`pip install 'analogist[postgres]'`"
        ) from None
    try:
        return psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as e:
        why = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
        raise StoreError(
            f"cannot open PostgreSQL database {_redacted(url)}: {why}; check that "
            "the server is running and the URL's host, port, user and database "
            "name are right"
        ) from None


class PostgresStore(Store):
    """A store on a PostgreSQL server; ``path`` is the URL without its password.

    Each thread gets its own server connection. Writes are transactions on it (nested ones are
    savepoints), so a failed write leaves nothing half-written, as on SQLite; many processes
    may share one database (the server serialises conflicting writes).
    """

    def __init__(self, url: str, vocabulary: Vocabulary | None = None):
        if not is_postgres_url(url):
            raise ConfigError(f"{url!r} is not a postgresql:// URL")
        _check_url(url)
        self.url, self.path = url, _redacted(url)
        self._local = threading.local()
        self._all: list[Any] = []
        self._lock = threading.Lock()
        self.pgvector: str | None = None  # the vector extension's version, once migrated
        self._indexes_deferred = False  # inside a bulk load that builds the HNSW indexes after
        self._vector_missing: str | None = None
        try:
            self._migrate()
            self.vocabulary = self._install_vocabulary(vocabulary)
        except BaseException:
            self.close()
            raise

    @property
    def conn(self) -> Any:
        """This thread's connection (a :class:`~analogist.store.pg_conn.PgConnection`)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            from analogist.store.pg_conn import PgConnection

            conn = PgConnection(_connect(self.url), self.path)
            if self.pgvector is not None:
                pg_vectors.register(conn.raw)
            self._local.conn = conn
            with self._lock:
                self._all.append(conn)
        return conn

    def _migrate(self) -> None:
        raw = self.conn.raw
        with raw.transaction():
            raw.execute("SELECT pg_advisory_xact_lock(%s)", (_MIGRATION_LOCK,))
            raw.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            done = {r[0] for r in raw.execute("SELECT name FROM schema_migrations")}
            known = {m.name for m in PG_MIGRATIONS}
            if done - known:
                raise StoreError(
                    f"database {self.path} was written by a newer analogist "
                    f"(migrations {sorted(done - known)}); upgrade analogist"
                )
            offered = {r[0] for r in raw.execute("SELECT name FROM pg_available_extensions")}
            for m in PG_MIGRATIONS:
                if m.needs is not None and m.needs not in offered:
                    self._vector_missing = (
                        f"the PostgreSQL server of {self.path} has no {m.needs!r} extension "
                        "(pg_available_extensions); install pgvector on the server "
                        "(e.g. postgresql-16-pgvector)"
                    )
                    continue
                if m.name not in done:
                    for statement in m.statements():
                        raw.execute(statement)
                    raw.execute("INSERT INTO schema_migrations VALUES (%s, %s)", (m.name, utcnow()))
                    done.add(m.name)
            got = raw.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            version = got.fetchone()
            if version is not None and VECTOR_MIGRATION in done:
                self.pgvector = str(version[0])
                pg_vectors.register(raw)
        if self.pgvector is not None:
            self.fill_embeddings()

    @property
    def read_only(self) -> str | None:
        return None

    def write_waits(self) -> list[float]:
        return []

    def close(self) -> None:
        with self._lock:
            conns, self._all = self._all, []
        for c in conns:
            c.close()
        self._local = threading.local()

    def add_episode_chunks(
        self, chunks: Iterable[tuple[Sequence[Episode], Mapping[str, Derived]]], expected: int
    ) -> list[str]:
        """As on SQLite, plus ``ANALYZE episodes`` inside the load each time the rows written
        double (from ``ANALYZE_AFTER``): the planner's statistics still describe the table as
        it was before the load (autovacuum cannot see uncommitted rows), so the next chunk's
        id checks would scan the whole growing table instead of probing its key (measured at
        1M: seconds per 10,000-id chunk, growing with every chunk)."""

        def analysed() -> Iterator[tuple[Sequence[Episode], Mapping[str, Derived]]]:
            written, due = 0, ANALYZE_AFTER
            for chunk in chunks:
                yield chunk
                written += len(chunk[0])
                if written >= due:
                    self.conn.execute("ANALYZE episodes")  # counts this transaction's rows
                    due = 2 * written

        try:
            return super().add_episode_chunks(analysed(), expected)
        except StoreError as e:
            if str(e).startswith("postgresql"):
                raise StoreError(
                    f"adding {expected} episode(s) failed, nothing was stored: {e}"
                ) from None
            raise

    # in-database vector search (pgvector; store/pg_vectors.py) ----------------------------
    def _write_vectors(
        self, verb: str, keys: list[tuple[str, str, str, int]], values: list[np.ndarray]
    ) -> None:
        """As on SQLite, plus the pgvector ``embedding`` of each row in the same statement. A
        (level, embedder) pair without an HNSW index gets it after these rows are written: one
        graph build over the first load instead of a graph insert per row (per-row inserts
        measured ~6x slower than the rows alone: 41 against 249 episodes/s; docs/scale.md)."""
        if self.pgvector is None:
            super()._write_vectors(verb, keys, values)
            return
        pairs = sorted({(k[1], k[2], k[3]) for k in keys})
        missing = [  # none while a bulk load defers them: it builds them after its last chunk
            p
            for p in ([] if self._indexes_deferred else pairs)
            if self.conn.raw.execute(
                "SELECT to_regclass(%s)", (pg_vectors.index_name(p[0], p[1]),)
            ).fetchone()[0]
            is None
        ]
        self.conn.executemany(
            f"{verb} INTO sig_vectors (episode_id, level, embedder, dim, vector, embedding) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                (*r, pg_vectors.encode(np.asarray(v, np.float32)))
                for r, v in zip(vector_rows(keys, values), values, strict=True)
            ],
        )
        for level, embedder, dim in missing:
            self.conn.raw.execute(pg_vectors.index_sql(level, embedder, dim))

    def fill_embeddings(self, chunk: int = 5000) -> int:
        """Write the pgvector ``embedding`` of every row that lacks one (rows written before
        ``0005_vector_search``, by an import, or whose vector was replaced without it) and
        create their pairs' HNSW indexes; return how many rows were filled. Cheap when there
        are none (a partial index lists them)."""
        if self.pgvector is None:
            return 0
        done = 0
        while True:
            rows = self.conn.execute(
                "SELECT rowid, dim, vector FROM sig_vectors WHERE embedding IS NULL "
                "ORDER BY rowid LIMIT ?",
                (chunk,),
            ).fetchall()
            if not rows:
                break
            with self.transaction():
                self.conn.executemany(
                    "UPDATE sig_vectors SET embedding = ? WHERE rowid = ?",
                    [(pg_vectors.encode(vector_blob.decode(r[2], r[1])), r[0]) for r in rows],
                )
            done += len(rows)
        if done:
            with self.transaction():
                self._index_pairs()
        return done

    def _index_pairs(self) -> None:
        """Create the HNSW index of every stored (level, embedder) pair that has none."""
        pairs = self.conn.execute("SELECT DISTINCT level, embedder, dim FROM sig_vectors")
        for level, embedder, dim in pairs.fetchall():
            self.conn.raw.execute(pg_vectors.index_sql(level, embedder, dim))

    def vector_search_missing(self) -> str | None:
        return (
            None
            if self.pgvector is not None
            else self._vector_missing or (f"the vector extension is not installed in {self.path}")
        )

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
        """Ranked by the server: the pair's pgvector HNSW index with ``hnsw.ef_search`` (at
        least the rows wanted), or an exact scan; ``exclude``d ids are dropped after ranking
        (the server is asked for ``k`` more per excluded id)."""
        why = self.vector_search_missing()
        if why is not None:
            raise ConfigError(f"in-database vector search: {why}")
        q = np.asarray(query, dtype=np.float32)
        wanted = k + len(exclude)
        ef = pg_vectors.ef_for(ef_search, wanted)
        if self.conn.execute(
            "SELECT 1 FROM sig_vectors WHERE embedding IS NULL LIMIT 1"
        ).fetchone():
            self.fill_embeddings()
        import psycopg

        vec = pg_vectors.encode(q)
        raw = self.conn.raw
        try:
            with raw.transaction():
                raw.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
                rows = raw.execute(
                    pg_vectors.search_sql(level, embedder, len(q), exact), (vec, vec, wanted)
                ).fetchall()
        except psycopg.Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StoreError(f"postgresql ({self.path}): vector search failed: {first}") from None
        return pg_vectors.filtered(rows, k, exclude)

    # what has no common spelling ----------------------------------------------------------
    def bm25(self, query: str, limit: int = 50) -> list[tuple[str, float]]:
        """Lexical search over L0 text: PostgreSQL full-text search (``simple`` config, any
        term). PostgreSQL has no bm25 (no term rarity), so the score is the number of distinct
        query terms an episode contains plus its ``ts_rank_cd`` squashed below 1: more of the
        query's words first, then denser matches (higher is better, like the negated bm25)."""
        words = [w for w in "".join(c if c.isalnum() else " " for c in query.lower()).split() if w]
        terms = list(dict.fromkeys(words))[:32]
        if not terms:
            return []
        matched = " + ".join(["(tsv @@ to_tsquery('simple', ?))::int"] * len(terms))
        rows = self.conn.execute(
            f"SELECT id, {matched} + ts_rank_cd(tsv, q) / (1 + ts_rank_cd(tsv, q)) AS score "
            "FROM episodes_fts, to_tsquery('simple', ?) q WHERE tsv @@ q "
            "ORDER BY score DESC, rowid LIMIT ?",
            (*terms, " | ".join(terms), limit),
        ).fetchall()
        return [(r[0], float(r[1])) for r in rows]

    def change_marker(self) -> tuple[int, int]:
        """(index generation, largest episode rowid): changes when any writer adds, replaces or
        deletes indexed rows (PostgreSQL has no ``data_version``)."""
        g = self.conn.execute("SELECT generation FROM index_state").fetchone()[0]
        top = self.conn.execute("SELECT MAX(rowid) FROM episodes").fetchone()[0]
        return int(g), int(top or 0)

    def appending(self, write: Callable[[], int], *, rebuild_indexes: bool = False) -> None:
        """As on SQLite (:meth:`IndexSync.appending`): the per-row ``*_insert`` triggers are
        switched off for this transaction (``ALTER TABLE ... DISABLE TRIGGER`` is
        transactional) and the rows counted once; thousands of updates of the one
        ``index_state`` row in a transaction would otherwise leave a chain of row versions each
        next update walks. A role that does not own the tables keeps the triggers (same
        result, slower). With ``rebuild_indexes`` (a load at least as large as the memory, see
        ``Store._small_beside``) the pgvector HNSW indexes are dropped and built again after the
        rows (measured at 1,470 episodes: a graph insert per row cut ingest from ~250 to ~40
        episodes/s); readers wait for that transaction (DROP INDEX locks the table)."""
        if rebuild_indexes and self.pgvector is not None:
            inner = write

            def write() -> int:
                for (name,) in self.conn.raw.execute(
                    "SELECT indexname FROM pg_indexes WHERE tablename = 'sig_vectors' "
                    "AND indexname LIKE 'sig_vectors_hnsw_%'"
                ).fetchall():
                    self.conn.raw.execute(f'DROP INDEX "{name}"')
                self._indexes_deferred = True
                try:
                    written = inner()
                finally:
                    self._indexes_deferred = False
                self._index_pairs()
                return written

        try:
            with self.transaction():
                for t in SOURCES:
                    self.conn.execute(f"ALTER TABLE {t} DISABLE TRIGGER {t}_insert")
        except StoreError:
            write()
            return
        written = write()
        for t in SOURCES:
            self.conn.execute(f"ALTER TABLE {t} ENABLE TRIGGER {t}_insert")
        self.conn.execute("UPDATE index_state SET generation = generation + ?", (written,))

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Every read inside sees one consistent state (a REPEATABLE READ transaction)."""
        conn = self.conn
        if conn.in_transaction:
            yield
            return
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        try:
            yield
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")


def snapshot_dir(url: str) -> Path:
    """Where this machine keeps the persisted indexes of a PostgreSQL memory:
    ``$ANALOGIST_INDEX_DIR`` (default ``~/.cache/analogist/indexes``) / ``pg-HOST-PORT-DB.idx``.
    Each snapshot records the database's index state, so a stale one is brought up to date
    (or rebuilt) on open, as for SQLite."""
    parts = urlsplit(url)
    base = os.environ.get("ANALOGIST_INDEX_DIR") or str(Path.home() / ".cache/analogist/indexes")
    name = "-".join(
        str(x)
        for x in (
            parts.hostname or "local",
            parts.port or 5432,
            parts.path.strip("/") or "postgres",
        )
    )
    return Path(base) / f"pg-{''.join(c if c.isalnum() or c in '-_.' else '_' for c in name)}.idx"


def _admin(url: str) -> Any:
    """A connection to the ``postgres`` database of ``url``'s server (to create or drop one)."""
    parts = urlsplit(url)
    return _connect(urlunsplit(parts._replace(path="/postgres")))


def fresh_database(url: str, suffix: str) -> str:
    """Drop and create the database ``<url's database><suffix>``; its URL (for benches)."""
    parts = urlsplit(url)
    name = f"{parts.path.strip('/') or 'analogist'}{suffix}"
    with _admin(url) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}"')
        c.execute(f'CREATE DATABASE "{name}"')
    return urlunsplit(parts._replace(path="/" + name))


def drop_database(url: str) -> None:
    with _admin(url) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{urlsplit(url).path.strip("/")}"')


def database_bytes(url: str) -> int:
    """``pg_database_size`` of the database ``url`` names."""
    with _connect(url) as c:
        row = c.execute("SELECT pg_database_size(current_database())").fetchone()
    return int(row[0]) if row else 0


def open_store(target: str | Path = ":memory:", vocabulary: Vocabulary | None = None) -> Store:
    """The store a ``--db`` value names: a ``postgresql://`` URL opens :class:`PostgresStore`,
    anything else is a SQLite file (or ``:memory:``)."""
    if is_postgres_url(target):
        return PostgresStore(str(target), vocabulary)
    if isinstance(target, str) and "://" in target:
        raise ConfigError(
            f"--db {target.split('://')[0]}://...: unknown database URL scheme; use "
            "postgresql://USER@HOST:PORT/DBNAME or a SQLite file path"
        )
    return Store(target, vocabulary)
