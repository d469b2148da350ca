"""SQLite connection handling: WAL, foreign keys, migrations, bounded waits for the write lock,
and one-transaction writes.

Concurrency model (several agents, threads or processes, on one database file):

* every thread uses its own connection (:class:`Connections` hands them out), so one thread's
  transaction never captures another thread's statements;
* WAL lets readers run while a writer holds the lock; readers are never blocked by writers;
* a writer takes the lock with ``BEGIN IMMEDIATE`` and, while another writer holds it, retries
  with bounded exponential backoff up to ``write_timeout_s`` (``ANALOGIST_DB_TIMEOUT``, default
  120 s); past that it raises :class:`~analogist.errors.StoreBusyError` with one clear line;
* a ``:memory:`` database exists only inside its one connection, so it is shared by all threads
  and its transactions are serialised with a lock instead.

A database that cannot be written (read-only file or filesystem, or written by a newer
analogist) is opened read-only: reads work, and any write raises a one-line
:class:`~analogist.errors.StoreError` that says why.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from pathlib import Path

from analogist.errors import StoreBusyError, StoreError
from analogist.store.migrations import MIGRATIONS, Migration

DEFAULT_WRITE_TIMEOUT_S = 120.0
BUSY_SLICE_S = 2.0  # sqlite's own busy handler (itself a backoff) waits this long per try
MAX_BACKOFF_S = 0.5

#: Errors a backend may raise past the store's own (a safety net for the CLI's one-line errors).
BACKEND_ERRORS: tuple[type[Exception], ...] = (sqlite3.Error,)


def utcnow() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_timeout_s() -> float:
    """The bound on waiting for the write lock: ``ANALOGIST_DB_TIMEOUT`` seconds, or 120."""
    raw = os.environ.get("ANALOGIST_DB_TIMEOUT")
    if not raw:
        return DEFAULT_WRITE_TIMEOUT_S
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not value > 0:
        from analogist.errors import ConfigError

        raise ConfigError(f"ANALOGIST_DB_TIMEOUT={raw!r} must be a positive number of seconds")
    return value


class Connection(sqlite3.Connection):
    """A connection that knows its transaction depth, why it may not write, and its write waits.

    Attributes:
        depth: open :func:`transaction` blocks (nested ones are savepoints).
        read_only: why writes are refused, or None.
        shared_lock: serialises transactions when threads share this connection (``:memory:``).
        write_timeout_s: bound on waiting for the write lock.
        waits: seconds each outer transaction waited for the write lock (newest 10,000).
    """

    depth: int
    read_only: str | None
    shared_lock: threading.RLock | None
    write_timeout_s: float
    waits: deque
    label: str


def _is_busy(e: sqlite3.OperationalError) -> bool:
    msg = str(e).lower()
    return "locked" in msg or "busy" in msg


def _is_not_db(e: sqlite3.Error) -> bool:
    return "not a database" in str(e).lower() or "malformed" in str(e).lower()


def _open(p: str, *, uri: bool = False, shared: bool = False) -> Connection:
    bound = write_timeout_s()
    conn = sqlite3.connect(
        p,
        isolation_level=None,
        check_same_thread=False,
        uri=uri,
        timeout=min(BUSY_SLICE_S, bound),
        factory=Connection,
    )
    conn.row_factory = sqlite3.Row
    conn.depth, conn.read_only = 0, None
    conn.shared_lock = threading.RLock() if shared else None
    conn.write_timeout_s = bound
    conn.waits = deque(maxlen=10_000)
    conn.label = p
    return conn


def _writable(p: str) -> str | None:
    """Why an existing database file cannot be written, or None."""
    folder = str(Path(p).resolve().parent)
    if not os.access(p, os.W_OK):
        return f"the file {p} is not writable"
    if not os.access(folder, os.W_OK):
        return f"its folder {folder} is not writable"
    return None


def connect(path: str | Path, *, migrate_schema: bool = True) -> Connection:
    """Open (creating if needed) a database with WAL, foreign keys and all migrations applied.

    Raises:
        StoreError: the path is not a database analogist can open (one line saying why).
    """
    p = str(path)
    if p == ":memory:":
        conn = _open(p, shared=True)
        _setup(conn, p, migrate_schema)
        return conn
    target = Path(p).expanduser()
    if target.is_dir():
        raise StoreError(f"--db {p} is a folder; give a database file such as {p}/analogist.db")
    if not target.exists():
        try:
            target.resolve().parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(
                f"cannot create the database folder for {p}: {e.strerror}; "
                "pass --db with a writable path"
            ) from None
    why_ro = _writable(str(target)) if target.exists() else None
    try:
        if why_ro is None:
            conn = _open(str(target))
        else:
            conn = _open_read_only(target)
            conn.read_only = f"database {p} is read-only ({why_ro})"
        _setup(conn, p, migrate_schema)
    except sqlite3.DatabaseError as e:
        if _is_not_db(e):
            raise StoreError(
                f"{p} is not an analogist database (SQLite: {e}); pass --db with a .db file, "
                "e.g. --db memory.db (episodes go in with `analogist add FILE.jsonl`)"
            ) from None
        if isinstance(e, sqlite3.OperationalError) and _is_busy(e):
            raise StoreBusyError(
                f"database {p} is locked by another process and stayed locked; "
                "try again, or raise ANALOGIST_DB_TIMEOUT"
            ) from None
        raise StoreError(f"cannot open database {p}: {e}; check the path or pass --db") from None
    return conn


def _open_read_only(target: Path) -> Connection:
    """Read-only: ``mode=ro`` first; ``immutable=1`` when WAL side files cannot be created."""
    uri = target.resolve().as_uri()
    conn = _open(f"{uri}?mode=ro", uri=True)
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
        return conn
    except sqlite3.OperationalError:
        conn.close()
    return _open(f"{uri}?immutable=1", uri=True)


#: Page size of a new database file (an existing file keeps the one it was made with). Larger
#: than SQLite's 4 KiB default: a bulk add's commit writes every page it dirtied to the WAL and
#: the checkpoint copies them into the file one system call per page, and an add dirties
#: pages all over the id indexes (``docs/performance.md``, twelfth session).
PAGE_SIZE = 16384


def _setup(conn: Connection, p: str, migrate_schema: bool) -> None:
    conn.execute("PRAGMA foreign_keys = ON")
    if conn.read_only is None and p != ":memory:":
        conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # a no-op once the file has a page
        mode = conn.execute("PRAGMA journal_mode").fetchone()[0]
        if mode != "wal":
            _retry_busy(conn, lambda: conn.execute("PRAGMA journal_mode = WAL"))
        conn.execute("PRAGMA synchronous = NORMAL")
    newer = unknown_migrations(conn)
    if newer:
        conn.read_only = (
            f"database {p} was written by a newer analogist (schema migration {newer[0]!r} is "
            "unknown to this version); upgrade analogist (pip install -U analogist) to write to it"
        )
    elif migrate_schema and conn.read_only is None:
        _refuse_foreign(conn, p)
        migrate(conn)
    if conn.read_only is not None:
        conn.execute("PRAGMA query_only = ON")


def _table_names(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def _refuse_foreign(conn: Connection, p: str) -> None:
    """A SQLite file with tables of its own is somebody else's: do not add ours to it."""
    tables = _table_names(conn)
    if tables and "schema_migrations" not in tables:
        raise StoreError(
            f"{p} is a SQLite database of another program (tables: "
            f"{', '.join(sorted(tables)[:3])}); pass --db with a new or analogist .db file"
        )


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names recorded in schema_migrations (empty for a new database)."""
    if "schema_migrations" not in _table_names(conn):
        return []
    return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def unknown_migrations(conn: sqlite3.Connection, known: list[Migration] | None = None) -> list[str]:
    """Migrations recorded in the database that this version does not have (a newer schema)."""
    names = {m.name for m in (MIGRATIONS if known is None else known)}
    return [n for n in applied_migrations(conn) if n not in names]


def migrate(conn: Connection, migrations: list[Migration] | None = None) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction; return their names.

    The check is repeated inside the write transaction, so two processes opening a new database
    at once apply each migration exactly once.
    """
    ran = []
    for m in MIGRATIONS if migrations is None else migrations:
        if m.name in applied_migrations(conn):
            continue
        with transaction(conn):
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            if m.name in applied_migrations(conn):
                continue
            m.apply(conn)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (m.name, utcnow()))
        ran.append(m.name)
    return ran


def _retry_busy(conn: sqlite3.Connection, fn: Callable[[], object]) -> float:
    """Run ``fn`` (which takes a lock), retrying with bounded exponential backoff and jitter
    while another writer holds it; return the seconds waited.

    Raises:
        StoreBusyError: still locked after ``conn.write_timeout_s``.
    """
    bound = getattr(conn, "write_timeout_s", DEFAULT_WRITE_TIMEOUT_S)
    start, delay = time.monotonic(), 0.01
    while True:
        try:
            fn()
            return time.monotonic() - start
        except sqlite3.OperationalError as e:
            if not _is_busy(e):
                raise
            waited = time.monotonic() - start
            if waited >= bound:
                raise StoreBusyError(
                    f"database {getattr(conn, 'label', '?')} stayed locked by another writer for "
                    f"{waited:.0f} s (bound {bound:g} s); nothing was written: retry, or raise "
                    "ANALOGIST_DB_TIMEOUT"
                ) from None
            time.sleep(min(delay * (0.5 + random.random()), max(0.0, bound - waited)))
            delay = min(delay * 2, MAX_BACKOFF_S)


def _begin(conn: sqlite3.Connection) -> None:
    """BEGIN IMMEDIATE with bounded retries; record how long it waited for the write lock."""
    waited = _retry_busy(conn, lambda: conn.execute("BEGIN IMMEDIATE"))
    waits = getattr(conn, "waits", None)
    if waits is not None:
        waits.append(waited)


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolling back on any exception (nothing half-written).

    A call inside an open transaction of the same connection becomes a savepoint. Threads never
    share a file connection; a shared ``:memory:`` connection serialises whole transactions.

    Raises:
        StoreError: the database is read-only (the message says why).
        StoreBusyError: the write lock stayed taken past the bound.
    """
    why = getattr(conn, "read_only", None)
    if why is not None:
        raise StoreError(f"{why}; nothing was written")
    lock = getattr(conn, "shared_lock", None)
    with lock if lock is not None else nullcontext():
        depth = getattr(conn, "depth", None)
        if depth is None:  # a plain sqlite3 connection: the old single-thread behaviour
            depth = 1 if conn.in_transaction else 0
        if depth:
            yield from _savepoint(conn, depth)
            return
        _begin(conn)
        _set_depth(conn, 1)
        try:
            yield conn
        except BaseException:
            _set_depth(conn, 0)
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        _set_depth(conn, 0)
        try:
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise


def _savepoint(conn: sqlite3.Connection, depth: int) -> Iterator[sqlite3.Connection]:
    sp = f"sp_{depth}"
    conn.execute(f"SAVEPOINT {sp}")
    _set_depth(conn, depth + 1)
    try:
        yield conn
    except BaseException:
        conn.execute(f"ROLLBACK TO {sp}")
        conn.execute(f"RELEASE {sp}")
        raise
    finally:
        _set_depth(conn, depth)
    conn.execute(f"RELEASE {sp}")


def _set_depth(conn: sqlite3.Connection, depth: int) -> None:
    if isinstance(conn, Connection):
        conn.depth = depth


class UsesConnection(ABC):
    """Base of the SQLite row mixins (:mod:`runs`, :mod:`bench`, :mod:`schemas`,
    :mod:`index_reads`): each reaches the database only through ``self.conn``, which
    :class:`~analogist.store.store.Store` provides (this thread's connection)."""

    @property
    @abstractmethod
    def conn(self) -> Connection:
        """This thread's connection."""


class Connections:
    """One connection per thread for a database file (one shared one for ``:memory:``).

    The first connection applies migrations; the others open the same file. A connection
    whose thread has ended is closed when the next one is opened (worker pools come and go);
    ``close`` closes every connection handed out, from whichever thread.
    """

    def __init__(self, path: str | Path):
        self.path = str(path)
        self._local = threading.local()
        self._lock = threading.Lock()
        self.main = connect(self.path)
        self._all: list[Connection] = [self.main]
        self._owners: dict[int, threading.Thread] = {}  # id(conn) -> the thread using it
        self._local.conn = self.main
        self._closed = False
        self._recent_waits: deque = deque(maxlen=10_000)  # waits of closed thread connections

    @property
    def shared(self) -> bool:
        return self.path == ":memory:"

    def get(self) -> Connection:
        """This thread's connection (opened on first use)."""
        if self.shared:
            return self.main
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self._closed:
                raise StoreError(f"the store {self.path} is closed; open it again")
            conn = connect(self.path, migrate_schema=False)
            if self.main.read_only and not conn.read_only:
                conn.read_only = self.main.read_only
                conn.execute("PRAGMA query_only = ON")
            with self._lock:
                self._close_orphans()
                self._all.append(conn)
                self._owners[id(conn)] = threading.current_thread()
            self._local.conn = conn
        return conn

    def _close_orphans(self) -> None:
        for c in [
            c for c in self._all if c is not self.main and not self._owners[id(c)].is_alive()
        ]:
            self._recent_waits.extend(c.waits)
            c.close()
            self._all.remove(c)
            del self._owners[id(c)]

    def waits(self) -> list[float]:
        """Seconds every outer write transaction waited for the lock, over all threads."""
        with self._lock:
            return [*self._recent_waits, *(w for c in self._all for w in c.waits)]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            for c in self._all:
                c.close()
            self._all.clear()
