"""A throwaway PostgreSQL cluster for tests: ``initdb`` in a temporary directory, listening on
127.0.0.1 at a free port, stopped (and its files removed) at the end of the session.

Server binaries, first found wins: ``PG_BIN`` (a directory holding initdb and pg_ctl); the
PostgreSQL 16 build bundled in the ``pgserver`` wheel (a ``dev``/``postgres`` extra; it ships
pgvector, so the in-database vector search is tested); Debian's ``/usr/lib/postgresql/*/bin``
(pgvector only where ``postgresql-NN-pgvector`` is installed). When none is there, or psycopg is
missing, :func:`why_unavailable` says so and the tests skip with that reason.
initdb refuses to run as root, so as root the cluster runs as ``nobody`` in a directory it owns
(every directory above the binaries must then be searchable by others: checked up front).
"""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path


def _pgserver_bin() -> Path | None:
    """``pgserver``'s bundled ``pginstall/bin``, found without importing it (its import creates
    a runtime directory)."""
    spec = find_spec("pgserver")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def pg_bin() -> tuple[Path, str] | None:
    """The directory with initdb and pg_ctl and where it comes from, or None."""
    candidates: list[tuple[str, str]] = [(os.environ.get("PG_BIN", ""), "PG_BIN")]
    bundled = _pgserver_bin()
    if bundled is not None and bundled.exists():
        candidates.append((str(_reachable(bundled)), "pgserver wheel"))
    candidates += [
        (c, "Debian postgresql")
        for c in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    ]
    for c, origin in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c), origin
    return None


def _reachable(bindir: Path) -> Path:
    """``bindir``, or, as root when ``nobody`` (who runs the server) cannot enter it (a venv
    inside a private temporary clone, as CI makes), the ``bin`` of a copy in a world-readable
    folder under the system temp dir, made once per install. The copy keeps the wheel's layout
    (``pgserver/pginstall`` beside ``pgserver.libs``): the binaries find their vendored
    libraries by a relative rpath."""
    if os.geteuid() != 0 or _unsearchable(bindir.resolve()) is None:
        return bindir
    site = bindir.resolve().parents[2]  # .../site-packages
    key = hashlib.sha256(str(site).encode()).hexdigest()[:12]
    copy = Path(tempfile.gettempdir()) / f"analogist-pgserver-{key}"
    inner = Path("pgserver") / "pginstall" / "bin"
    if not (copy / inner / "pg_ctl").exists():
        part = Path(tempfile.mkdtemp(prefix="analogist-pgserver-"))
        os.chmod(part, 0o755)
        shutil.copytree(site / "pgserver" / "pginstall", part / "pgserver" / "pginstall")
        if (site / "pgserver.libs").exists():
            shutil.copytree(site / "pgserver.libs", part / "pgserver.libs")
        os.chmod(part / "pgserver", 0o755)
        with contextlib.suppress(OSError):  # another process made it meanwhile
            part.rename(copy)
        shutil.rmtree(part, ignore_errors=True)
    return copy / inner


def _unsearchable(path: Path) -> Path | None:
    """The first directory at or above ``path`` that ``nobody`` could not enter, or None."""
    for d in [path, *path.parents]:
        if not os.stat(d).st_mode & 0o001:
            return d
    return None


def why_unavailable() -> str | None:
    if find_spec("psycopg") is None:
        return "psycopg is not installed (pip install 'analogist[postgres]')"
    found = pg_bin()
    if found is None:
        return (
            "PostgreSQL server binaries not found (pip install pgserver==0.1.4, or apt-get "
            "install postgresql-15, or set PG_BIN to the directory holding initdb and pg_ctl)"
        )
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root without runuser: initdb refuses root"
        closed = _unsearchable(found[0].resolve())
        if closed is not None:
            return f"running as root: the server runs as nobody, who cannot enter {closed}"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """One cluster; ``url(dbname)`` creates a fresh database and returns its URL.

    Attributes:
        origin: where the binaries came from (``PG_BIN``, ``pgserver wheel``, ``Debian
            postgresql``).
        version: the server's version string (``SHOW server_version``).
        pgvector: the ``vector`` extension's version when the server offers it, else None.
    """

    def __init__(self) -> None:
        found = pg_bin()
        assert found is not None
        bindir, self.origin = found
        self.bin, self.port, self.user = bindir, _free_port(), "analogist"
        self.root = Path(tempfile.mkdtemp(prefix="analogist-pg-"))
        self.data = self.root / "data"
        self._as = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        if self._as:
            os.chmod(self.root, 0o755)
            shutil.chown(self.root, "nobody")
        self._run(
            "initdb",
            "-D",
            str(self.data),
            "-U",
            self.user,
            "-A",
            "trust",
            "--no-sync",
            "-E",
            "UTF8",
            "--locale",
            "C",
        )
        opts = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c fsync=off "
            f"-c unix_socket_directories={self.root} -c max_connections=50"
        )
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.root / "log"),
            "-w",
            "-t",
            "30",
            "start",
        )
        self._n = 0
        self.version, self.pgvector = self._describe()

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / tool), *args], check=True, capture_output=True, cwd=self.root
        )

    def _describe(self) -> tuple[str, str | None]:
        import psycopg

        with psycopg.connect(self.base_url("postgres"), autocommit=True) as c:
            version = c.execute("SHOW server_version").fetchone()
            vec = c.execute(
                "SELECT default_version FROM pg_available_extensions WHERE name = 'vector'"
            ).fetchone()
        return str(version[0]) if version else "?", str(vec[0]) if vec else None

    def describe(self) -> str:
        """One line: which server runs the PostgreSQL tests and whether pgvector is there."""
        vec = f"pgvector {self.pgvector}" if self.pgvector else "no pgvector"
        return f"PostgreSQL {self.version} ({self.origin}, {self.bin}), {vec}"

    def url(self, name: str | None = None) -> str:
        import psycopg

        self._n += 1
        name = name or f"db{self._n}_{int(time.time() * 1000) % 100000}"
        with psycopg.connect(self.base_url("postgres"), autocommit=True) as c:
            c.execute(f'CREATE DATABASE "{name}"')
        return self.base_url(name)

    def base_url(self, name: str) -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{name}"

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
