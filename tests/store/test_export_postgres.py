"""Moving a memory between backends: SQLite -> JSONL -> PostgreSQL -> JSONL gives the same
records (only the header's source backend differs), PostgreSQL -> SQLite gives the first file
back byte for byte, and searches answer the same. One throwaway cluster (tests/store/pg_server);
skipped with the reason when the server binaries or psycopg are missing."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from analogist.store import Derived, Store
from analogist.store.index_sync import SOURCES
from analogist.store.transfer import export_memory, export_to, unknown_tables
from analogist.store.transfer_import import TransferError, import_from, import_memory
from tests.store.export_cases import dump, fill, legacy_export, searches


def _export(store: Store) -> bytes:
    buf = io.BytesIO()
    export_memory(store, buf)
    return buf.getvalue()


def test_sqlite_to_postgres_and_back_is_lossless(pg_server, tmp_path, monkeypatch):
    from analogist.store.postgres import PostgresStore

    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    with Store(tmp_path / "a.db") as a:
        fill(a)
    first = tmp_path / "a.jsonl"
    export_to(str(tmp_path / "a.db"), str(first))
    url = pg_server.url()
    import_from(str(first), url)
    with PostgresStore(url) as p:
        assert unknown_tables(p) == []
        second = _export(p)
    one, two = first.read_bytes().splitlines(), second.splitlines()
    assert one[1:] == two[1:]  # every record, byte for byte
    h1, h2 = json.loads(one[0]), json.loads(two[0])
    assert (h1.pop("source_backend"), h2.pop("source_backend")) == ("sqlite", "postgresql")
    assert h1 == h2
    import_memory(Store(tmp_path / "c.db"), io.BytesIO(second))
    with Store(tmp_path / "a.db") as a, Store(tmp_path / "c.db") as c, PostgresStore(url) as p:
        assert _export(c) == first.read_bytes()
        assert dump(a) == dump(p) == dump(c)
        # M.bm25 ranks by ts_rank_cd on PostgreSQL, not bm25 (docs/scale.md), so it may differ
        same = frozenset({"M.bm25"})
        assert searches(a, skip=same) == searches(p, skip=same)
        assert [i for i, _ in p.bm25("cached summary")][:1] == ["proxy"]
        # ids keep counting past the imported ones
        assert p.calls.record(p.calls.all()[0]) == 3 and p.log_run({"run_id": "r3"}) is None
        assert p.max_log_rowid() > a.max_log_rowid()
        # the index state counts the imported rows as on SQLite, and its triggers are back on
        counters = [(s.index_state().generation, s.index_state().rebuilds) for s in (p, c)]
        rows = dump(c)
        assert counters[0] == counters[1] == (1 + sum(len(rows[t]) for t in SOURCES), 1)
        g = p.index_state().generation
        p.put_derived({"proxy": Derived(vectors=(("LX", "e", np.zeros(4, np.float32)),))})
        assert p.index_state().generation == g + 1


def test_a_failed_import_leaves_the_postgres_target_empty(pg_server, tmp_path):
    from analogist.store.postgres import PostgresStore

    with Store(tmp_path / "a.db") as a:
        fill(a)
        data = _export(a)
    url = pg_server.url()
    cut = b"".join(data.splitlines(keepends=True)[:-2])
    with PostgresStore(url) as p:
        before = dump(p)
        with pytest.raises(TransferError, match="truncated"):
            import_memory(p, io.BytesIO(cut), "cut.jsonl")
        assert dump(p) == before
        bad = data.replace(b'"id":"ledger"', b'"id":"proxy"', 1)
        with pytest.raises(TransferError, match="episodes: the database refused this row"):
            import_memory(p, io.BytesIO(bad), "bad.jsonl")
        assert dump(p) == before
        import_memory(p, io.BytesIO(data))
        with pytest.raises(TransferError, match="not empty"):
            import_memory(p, io.BytesIO(data))


def test_the_cli_moves_a_memory_to_postgres_by_url(pg_server, tmp_path, monkeypatch):
    from click.testing import CliRunner

    from analogist.cli.main import cli

    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    with Store(tmp_path / "a.db") as a:
        fill(a)
    runner, url = CliRunner(), pg_server.url()
    out = runner.invoke(cli, ["--db", str(tmp_path / "a.db"), "export", str(tmp_path / "a.jsonl")])
    assert out.exit_code == 0, out.output
    monkeypatch.setenv("ANALOGIST_DB", url)
    got = runner.invoke(cli, ["import", str(tmp_path / "a.jsonl")])
    assert got.exit_code == 0 and "7 episodes" in got.stdout, got.output
    back = runner.invoke(cli, ["export"])
    assert (
        back.stdout_bytes.splitlines()[1:] == (tmp_path / "a.jsonl").read_bytes().splitlines()[1:]
    )
    again = runner.invoke(cli, ["import", str(tmp_path / "a.jsonl")])
    assert again.exit_code == 1 and "not empty" in again.stderr


def test_an_export_from_before_the_relations_column_imports_into_postgres(pg_server, tmp_path):
    """The legacy layout (relation rows as a table of their own) folds into the column on
    PostgreSQL as on SQLite: the same rows, and the current layout exported again."""
    from analogist.store.postgres import PostgresStore

    with Store(tmp_path / "a.db") as a:
        fill(a)
    first = tmp_path / "a.jsonl"
    export_to(str(tmp_path / "a.db"), str(first))
    old = tmp_path / "old.jsonl"
    old.write_bytes(legacy_export(first.read_bytes()))
    url = pg_server.url()
    import_from(str(old), url)
    with Store(tmp_path / "a.db") as a, PostgresStore(url) as p:
        assert dump(a) == dump(p)
        assert _export(p).splitlines()[1:] == first.read_bytes().splitlines()[1:]
