"""Export / import (store/transfer*.py): every table is accounted for, the SQLite round trip is
lossless (byte-identical second export, same rows and rowids, same search results), and bad
files are refused with one line naming the line, leaving the target as it was."""

from __future__ import annotations

import hashlib
import io
import json
import re
from pathlib import Path

import pytest

from analogist.errors import StoreError
from analogist.store import Store
from analogist.store.transfer import export_memory, export_to, unknown_tables
from analogist.store.transfer_import import TransferError, import_from, import_memory
from analogist.store.transfer_tables import BY_NAME, DERIVED, TABLES
from tests.store.export_cases import dump, fill, legacy_export, searches


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, bytes]:
    """A filled SQLite memory and its export."""
    db = tmp_path_factory.mktemp("src") / "a.db"
    with Store(db) as s:
        fill(s)
    out = db.with_suffix(".jsonl")
    export_to(str(db), str(out))
    return db, out.read_bytes()


def _export(store: Store) -> bytes:
    buf = io.BytesIO()
    export_memory(store, buf)
    return buf.getvalue()


def test_every_table_of_the_schema_is_exported_or_rebuilt(tmp_path):
    """A migration that adds a table must classify it (transfer_tables.TABLES or DERIVED)."""
    with Store(tmp_path / "a.db") as s:
        assert unknown_tables(s) == []
        names = {
            r[0]
            for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not r[0].startswith(("sqlite_", "episodes_fts_"))
        }
        assert names == set(BY_NAME) | set(DERIVED)
        for t in TABLES:
            cols = [r[1] for r in s.conn.execute(f"PRAGMA table_info({t.name})")]
            assert [c.name for c in t.columns] == cols, t.name


def test_sqlite_round_trip_is_lossless(exported, tmp_path):
    db, data = exported
    target = tmp_path / "b.db"
    report = import_from(str(db.with_suffix(".jsonl")), str(target))
    assert report.records == len(data.splitlines()) - 1
    with Store(db) as a, Store(target) as b:
        assert _export(b) == data  # byte-identical second export
        assert dump(a) == dump(b)  # every row, with its rowid
        assert a.vocab_counts() == b.vocab_counts() and tuple(a.vocabulary) == tuple(b.vocabulary)
        assert a.bm25("cached summary") == b.bm25("cached summary")
        assert a.consolidation_watermark() == b.consolidation_watermark()
        assert searches(a) == searches(b)
        assert b.index_state().rebuilds >= 1  # an old snapshot would not be trusted
        assert b.undo_consolidation("c1") == 4  # undo images moved with the memory
        assert [r.schema_id for r in b.list_schemas()] == ["sc0"]
        assert b.vocabulary.get("correlates_with").merged_into is None


def test_an_export_from_before_the_relations_column_imports_the_same_memory(exported, tmp_path):
    """Relation rows exported as a table of their own (before ``0007_relations_column``) are
    folded into their signatures' column on import: the same rows as the source, in order."""
    db, data = exported
    old = tmp_path / "old.jsonl"
    old.write_bytes(legacy_export(data))
    assert b'"table":"sig_relations"' in old.read_bytes()
    report = import_from(str(old), str(tmp_path / "b.db"))
    assert dict(report.counts)["sig_relations"] > 0
    with Store(db) as a, Store(tmp_path / "b.db") as b:
        assert dump(a) == dump(b)
        view = "SELECT * FROM sig_relations"
        assert [tuple(r) for r in a.conn.execute(view)] == [tuple(r) for r in b.conn.execute(view)]
        assert _export(b) == data  # exported again: the current layout, byte for byte


@pytest.mark.parametrize(
    ("column", "value", "why"),
    [
        ("episode_id", "ep_nowhere", "ep_nowhere', which has no signature row"),
        ("args_json", '["A", 3]', "is not a JSON list of role names"),
        ("args_json", "[oops", "is not a JSON list of role names"),
    ],
)
def test_an_older_export_with_a_bad_relation_row_is_refused(exported, tmp_path, column, value, why):
    _, data = exported
    legacy = legacy_export(data)
    lines = legacy.splitlines(keepends=True)
    n = next(i for i, x in enumerate(lines) if b'"table":"sig_relations"' in x)
    rec = json.loads(lines[n])
    rec["row"][column] = value
    lines[n] = json.dumps(rec, separators=(",", ":")).encode() + b"\n"
    header = json.loads(lines[0])
    header["checksum"] = "sha256:" + hashlib.sha256(b"".join(lines[1:])).hexdigest()
    lines[0] = json.dumps(header).encode() + b"\n"
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b"".join(lines))
    with pytest.raises(TransferError, match=rf"line {n + 1}: sig_relations: .*{re.escape(why)}"):
        import_from(str(bad), str(tmp_path / "c.db"))
    assert not (tmp_path / "c.db").exists()


def test_the_export_is_streamed_in_a_fixed_layout(exported):
    _, data = exported
    lines = data.splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "analogist-memory" and header["format_version"] == 1
    assert header["source_backend"] == "sqlite" and header["schema"][0] == "0001_core"
    assert header["records"] == len(lines) - 1 == sum(t["rows"] for t in header["tables"].values())
    assert set(header["derived"]) == set(DERIVED)
    tables = [json.loads(x)["table"] for x in lines[1:]]
    assert tables == sorted(tables, key=[t.name for t in TABLES].index)
    eps = [json.loads(x)["row"] for x in lines[1:] if b'"table":"episodes"' in x]
    assert "gone" not in {e["id"] for e in eps}
    assert [e["rowid"] for e in eps] == sorted(e["rowid"] for e in eps)
    vec = next(json.loads(x)["row"] for x in lines[1:] if b'"table":"sig_vectors"' in x)
    assert isinstance(vec["vector"], str) and vec["dim"] > 0  # base64 float32


def test_an_empty_memory_round_trips(tmp_path):
    with Store(tmp_path / "a.db") as a:
        data = _export(a)
    with Store(tmp_path / "b.db") as b:
        import_memory(b, io.BytesIO(data))
        assert _export(b) == data and b.count() == 0


def test_a_missing_source_is_refused_and_not_created(tmp_path):
    with pytest.raises(StoreError, match="no memory at"):
        export_to(str(tmp_path / "nope.db"), str(tmp_path / "out.jsonl"))
    assert not (tmp_path / "nope.db").exists() and not (tmp_path / "out.jsonl").exists()


def test_an_export_is_one_consistent_copy_while_another_agent_writes(tmp_path, monkeypatch):
    """Rows another connection commits in the middle of an export are not in it (one read
    snapshot), so its counts and checksum still match and it imports."""
    from analogist.episode import parse_episode
    from analogist.store import transfer

    db = tmp_path / "a.db"
    with Store(db) as s:
        fill(s)
    writer = Store(db)
    real = transfer.table_rows

    def rows_then_write(store, table, page=transfer.PAGE):
        for i, rec in enumerate(real(store, table, page=2)):
            yield rec
            if table.name == "episodes" and i == 0:  # mid-export, between two pages
                ep = parse_episode(
                    {"id": "late", "kind": "failure", "text": "x"}, writer.vocabulary
                )
                writer.add_episodes([ep])

    monkeypatch.setattr(transfer, "table_rows", rows_then_write)
    with Store(db) as s:
        data = _export(s)
    writer.close()
    assert b'"late"' not in data
    with Store(tmp_path / "b.db") as b:
        import_memory(b, io.BytesIO(data))
        assert "late" not in b.episode_ids() and b.count() == 7


# bad input --------------------------------------------------------------------------------
def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _edit(data: bytes, n: int, fn) -> bytes:
    """Line ``n`` (1-based) replaced by ``fn(line)``."""
    lines = _lines(data)
    lines[n - 1] = fn(lines[n - 1])
    return b"".join(lines)


def _header(data: bytes, **changes) -> bytes:
    def f(line: bytes) -> bytes:
        h = json.loads(line)
        h.update(changes)
        return json.dumps(h).encode() + b"\n"

    return _edit(data, 1, f)


def _first(data: bytes, table: str) -> int:
    return next(i for i, x in enumerate(_lines(data), 1) if f'"table":"{table}"'.encode() in x)


def _row(data: bytes, table: str, skip: int = 0, **changes) -> bytes:
    """The first (after ``skip``) record of ``table`` with ``changes`` (``...``: drop it)."""

    def f(line: bytes) -> bytes:
        rec = json.loads(line)
        rec["row"].update(changes)
        rec["row"] = {k: v for k, v in rec["row"].items() if v is not ...}
        return json.dumps(rec, separators=(",", ":")).encode() + b"\n"

    return _edit(data, _first(data, table) + skip, f)


BAD = {
    "truncated": (
        lambda d: b"".join(_lines(d)[:-3]),
        r"ends at line \d+ with 1 llm_calls rows of the 2 .* truncated",
    ),
    "cut mid-line": (lambda d: d[: len(d) - 40], r"line \d+: not valid JSON"),
    "wrong version": (lambda d: _header(d, format_version=2), "line 1: export format version 2"),
    "newer schema": (
        lambda d: _header(d, schema=["0001_core", "0099_future"]),
        "line 1: exported from a newer schema",
    ),
    "not an export": (lambda d: b'{"id": "x"}\n' + d, "line 1: not an analogist export"),
    "corrupt line": (
        lambda d: _edit(d, _first(d, "signatures"), lambda x: x[:30] + b"\n"),
        r"line \d+: not valid JSON",
    ),
    "wrong type": (
        lambda d: _row(d, "episodes", kind=7),
        r"line \d+: episodes: column 'kind' is an integer but must be a string",
    ),
    "null in a required column": (
        lambda d: _row(d, "episodes", text=None),
        r"line \d+: episodes: column 'text' is null but must be a string",
    ),
    "missing column": (
        lambda d: _row(d, "sig_vectors", vector=...),
        r"line \d+: sig_vectors: missing column 'vector'",
    ),
    "not base64": (
        lambda d: _row(d, "sig_vectors", vector="@@"),
        r"line \d+: sig_vectors: column 'vector' is not valid base64",
    ),
    "checksum": (
        lambda d: _edit(d, _first(d, "episodes"), lambda x: x.replace(b"cache", b"cachE", 1)),
        "checksum mismatch",
    ),
    "duplicate id": (
        lambda d: _row(d, "episodes", 1, id="proxy"),
        r"line \d+: episodes: the database refused this row \(.*(UNIQUE|unique).*\)",
    ),
    "out of order": (
        lambda d: (lambda ls: b"".join([ls[0], ls[_first(d, "episodes") - 1], *ls[1:]]))(_lines(d)),
        r"line \d+: (a vocab record after episodes|more episodes)",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_files_are_refused_in_one_line_and_a_new_target_is_not_created(
    exported, tmp_path, case
):
    _, data = exported
    bad, message = BAD[case]
    path = tmp_path / "bad.jsonl"
    path.write_bytes(bad(data))
    target = tmp_path / "new.db"
    with pytest.raises(TransferError, match=message) as e:
        import_from(str(path), str(target))
    assert "\n" not in str(e.value) and "nothing was imported" in str(e.value)
    assert not target.exists() and not Path(f"{target}-wal").exists()


@pytest.mark.parametrize("case", ["truncated", "checksum", "duplicate id", "corrupt line"])
def test_a_failed_import_leaves_an_existing_empty_target_unchanged(exported, tmp_path, case):
    _, data = exported
    bad, message = BAD[case]
    with Store(tmp_path / "t.db") as t:
        before = (dump(t), t.index_state())
        with pytest.raises(TransferError, match=message):
            import_memory(t, io.BytesIO(bad(data)), "bad.jsonl")
        assert (dump(t), t.index_state()) == before


def test_a_memory_that_holds_data_is_refused(exported, tmp_path):
    db, data = exported
    with Store(db) as full:
        before = dump(full)
        with pytest.raises(TransferError, match="not empty .*episodes.*merging is not supported"):
            import_memory(full, io.BytesIO(data))
        assert dump(full) == before


def test_an_empty_file_and_a_missing_file(tmp_path):
    (tmp_path / "empty.jsonl").write_bytes(b"")
    with pytest.raises(TransferError, match="the file is empty"):
        import_from(str(tmp_path / "empty.jsonl"), str(tmp_path / "x.db"))
    with pytest.raises(FileNotFoundError):
        import_from(str(tmp_path / "missing.jsonl"), str(tmp_path / "x.db"))
    assert not (tmp_path / "x.db").exists()
