"""A throwaway PostgreSQL cluster for tests: ``initdb`` in a temporary directory, listening on
127.0.0.1 at a free port, stopped (and its files removed) at the end of the session.

Uses Debian's server binaries (``/usr/lib/postgresql/*/bin`` or ``PG_BIN``); when they or
psycopg are missing, :func:`why_unavailable` says so and the tests skip with that reason.
initdb refuses to run as root, so as root the cluster runs as ``nobody`` in a directory it owns.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from importlib.util import find_spec
from pathlib import Path


def pg_bin() -> Path | None:
    """The directory with initdb and pg_ctl, or None."""
    candidates = [os.environ.get("PG_BIN", "")] + sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), reverse=True
    )
    for c in candidates:
        if c and (Path(c) / "initdb").exists() and (Path(c) / "pg_ctl").exists():
            return Path(c)
    return None


def why_unavailable() -> str | None:
    if find_spec("psycopg") is None:
        return "psycopg is not installed (pip install 'analogist[postgres]')"
    if pg_bin() is None:
        return (
            "PostgreSQL server binaries not found (apt-get install postgresql-15, "
            "or set PG_BIN to the directory holding initdb and pg_ctl)"
        )
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "running as root without runuser: initdb refuses root"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PgServer:
    """One cluster; ``url(dbname)`` creates a fresh database and returns its URL."""

    def __init__(self) -> None:
        bindir = pg_bin()
        assert bindir is not None
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

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self._as, str(self.bin / tool), *args], check=True, capture_output=True, cwd=self.root
        )

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
