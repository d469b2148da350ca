"""Incremental snapshot saves: a save after appends links the live snapshot's rows file and
extends its per-dimension lists or HNSW graph instead of rewriting and rebuilding (both kinds:
``kind``), answers exactly as a full rebuild,
and survives a kill -9 in the middle (the live snapshot stays in force; the next save repairs
the shared rows file)."""

from __future__ import annotations

import json
import os
import shutil
import textwrap
from pathlib import Path

import numpy as np
import pytest

from analogist.retrieve.ann import available as ann_available
from analogist.retrieve.persist import FORMAT
from tests.scale.episodes import lines
from tests.scale.killed import kill_when
from tests.scale.test_persisted_indexes import answers, fresh_answers, open_memory, tails

PROBES = ["ep_3", "ep_70", "ep_130"]
HNSW = ann_available() is None


@pytest.fixture(params=["lists", "hnsw"])
def kind(request, monkeypatch) -> str:
    """Each test runs with the hashing rows searched through lists (what ``auto`` picks for
    them) and through an HNSW graph (``ANALOGIST_VECTOR_INDEX=hnsw``)."""
    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", request.param)
    return str(request.param)


def extended(entry: dict, kind: str) -> bool:
    """Was this vector entry's lists or graph extended (not rebuilt)?"""
    return bool(entry["lists_extended"] if kind == "lists" else entry["hnsw_extended"])


def expected_mode(kind: str) -> str:
    return "lists" if kind == "lists" else ("hnsw" if HNSW else "exact")


def manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def linked(folder: Path) -> dict[str, bool]:
    return {k: e.get("rows_linked", False) for k, e in manifest(folder)["indexes"].items()}


def vector_entries(folder: Path) -> list[dict]:
    return [e for k, e in manifest(folder)["indexes"].items() if k.startswith("vec:")]


def arrays(folder: Path) -> dict[str, np.ndarray]:
    """Every array of a snapshot (rows files cut to the rows the manifest names; a level's
    per-dimension lists as one segment, however many the save kept them in)."""
    from analogist.retrieve.vector_lists import VectorLists

    out = {p.name: np.load(p) for p in folder.glob("*.npy") if "lists" not in p.name}
    n = manifest(folder)["indexes"]["vec:L2:" + "hashing-384-bi"]["n"]
    for p in folder.glob("*lists_offsets.npy"):
        prefix = p.name.removesuffix("lists_offsets.npy")
        one = VectorLists.open(folder, prefix, n).merged()
        for name in ("offsets", "docs", "vals"):
            out[f"{prefix}lists_{name}.npy"] = np.asarray(getattr(one, name))
    for p in folder.glob("*rows.f32"):
        out[p.name] = np.fromfile(p, np.float32)[: n * 384]
    for p in folder.glob("*sparse_indptr.bin"):
        indptr = np.fromfile(p, np.int64)[: n + 1]
        out[p.name] = indptr
        for part, dtype in (("cols", np.uint16), ("vals", np.float32)):
            q = p.with_name(p.name.replace("indptr", part))
            out[q.name] = np.fromfile(q, dtype)[: indptr[-1]]
    return out


def rows_file(folder: Path, level: str) -> tuple[Path, int]:
    """A level's file that grows by a fixed width per row — raw float32 rows, or the sparse
    rows' row pointers — and that width."""
    raw = list(folder.glob(f"vec_{level}_*rows.f32"))
    return (raw[0], 384 * 4) if raw else (next(folder.glob(f"vec_{level}_*sparse_indptr.bin")), 8)


def dense_rows(folder: Path, level: str, n: int) -> np.ndarray:
    """A level's first ``n`` rows as float32, from either stored form."""
    from analogist.retrieve.persist import vector_prefix
    from analogist.retrieve.sparse_rows import SparseRows

    raw = list(folder.glob(f"vec_{level}_*rows.f32"))
    if raw:
        return np.fromfile(raw[0], np.float32).reshape(-1, 384)[:n]
    return np.asarray(SparseRows.open(folder, vector_prefix(level, "hashing-384-bi"), n, 384))


def drop_rows_files(folder: Path, level: str) -> None:
    for p in [*folder.glob(f"vec_{level}_*rows.f32"), *folder.glob(f"vec_{level}_*sparse_*")]:
        p.unlink()


def build(db: Path, *, steps: list[tuple[int, int]], full: bool = False) -> Path:
    m = open_memory(db)
    folder = None
    for start, count in steps:
        m.add(lines(11, start, count))
        folder = m.indexes.save(full=full)
    m.store.close()
    assert folder is not None
    return folder


def test_an_incremental_save_equals_a_full_rebuild(tmp_path, kind):
    inc = build(tmp_path / "a.db", steps=[(0, 100), (100, 40)])
    full = build(tmp_path / "b.db", steps=[(0, 100), (100, 40)], full=True)
    for e in vector_entries(inc):
        assert e["rows_linked"] and e["n"] == 140
        assert extended(e, kind) == (kind == "lists" or HNSW)
        assert e["lists"] == (kind == "lists") and e["hnsw"] == (kind == "hnsw" and HNSW)
        assert e.get("lists_segments") == (2 if kind == "lists" else None)  # the old one linked
    for e in vector_entries(full):
        assert not e["rows_linked"] and not e["hnsw_extended"] and not e["lists_extended"]
        assert e.get("lists_segments") == (1 if kind == "lists" else None)
    got, want = arrays(inc), arrays(full)
    assert sorted(got) == sorted(want)
    for name, a in want.items():
        assert np.array_equal(got[name], a), name  # byte for byte the same S0/S1/ids/rows/lists
    for db in ("a.db", "b.db"):  # exact, lists and HNSW answers equal a rebuild from the database
        m = open_memory(tmp_path / db)
        assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}
        assert answers(m, PROBES) == fresh_answers(tmp_path / "b.db", PROBES)
        m.indexes.exact_vectors = False
        m.indexes.invalidate()
        assert m.indexes.vectors("L2").mode == expected_mode(kind)
        assert scores(answers(m, PROBES)) == scores(fresh_answers(tmp_path / "b.db", PROBES))
        m.store.close()


def test_small_saves_keep_the_postings_base_and_write_a_delta_until_it_outgrows_it(tmp_path):
    """S0's and S1's postings: a save of few new documents hard-links the base's files and
    writes the new ones as a delta layer; once the delta passes DELTA_SHARE (1/8) of the base,
    the next save merges the layers. Whichever, the postings read as one full build's."""
    from analogist.retrieve.persist import load_fingerprints, load_mac

    db, whole = tmp_path / "a.db", tmp_path / "b.db"
    m = open_memory(db)
    kept, inode, ids_before = [], None, None
    steps = [(0, 160), (160, 10), (170, 10), (180, 30)]
    for step, (start, count) in enumerate(steps):
        m.add(lines(11, start, count))
        folder = m.indexes.save()
        assert folder is not None
        man = manifest(folder)["indexes"]
        kept.append(
            [(man[k]["postings_base_kept"], man[k]["postings_delta"]) for k in ("fp", "mac")]
        )
        vec = next(k for k in man if k.startswith("vec:L2:"))
        assert all(  # the id tables follow the same rule (each index's own)
            (man[k]["ids_base_kept"], man[k]["ids_delta"]) == kept[-1][0]
            for k in ("fp", "mac", vec)
        )
        now = (folder / "fp_docs.npy").stat().st_ino  # the base's file: the same one if kept
        assert (now == inode) == man["fp"]["postings_base_kept"]
        inode, ids_inode = now, (folder / "fp_ids.npy").stat().st_ino
        assert (ids_inode == ids_before) == man["fp"]["ids_base_kept"]
        ids_before = ids_inode
        assert (folder / "fp_delta_docs.npy").exists() == man["fp"]["postings_base_kept"]
        assert (folder / "mac_delta_ids.npy").exists() == man["mac"]["ids_base_kept"]
        full = build(whole, steps=steps[: step + 1], full=True)
        version = manifest(folder)["wl_version"]
        fp_got, fp_want = load_fingerprints(folder, version), load_fingerprints(full, version)
        assert (man["fp"]["hashes_base_kept"], man["fp"]["hashes_delta"]) == kept[-1][0]
        hashes = {h for (h,) in m.store.conn.execute("SELECT wl_hash FROM sig_fingerprint")}
        assert all(list(fp_got.exact(h)) == list(fp_want.exact(h)) for h in hashes)
        for prefix in ("fp_", "mac_"):  # the ids read, and merge, as one full build's
            ids = (
                load_fingerprints(folder, manifest(folder)["wl_version"])
                if prefix == "fp_"
                else load_mac(folder)
            ).ids
            assert list(ids) == list(np.load(full / f"{prefix}ids.npy").astype(str))
            merged = ids.merged()
            for name, arr in (
                ("ids", merged.base),
                ("ids_order", merged.order),
                ("ids_keys", merged.sorted_keys),
            ):
                assert np.array_equal(arr, np.load(full / f"{prefix}{name}.npy")), (prefix, name)
        version = manifest(folder)["wl_version"]
        for got, prefix in (
            (load_fingerprints(folder, version).postings.freeze(), "fp_"),
            (load_mac(folder).postings.freeze(), "mac_"),
        ):
            for name in ("keys", "offsets", "docs", "weights", "sums", "norms"):
                want = np.load(full / f"{prefix}{name}.npy")
                assert np.array_equal(getattr(got, name), want), (start, prefix, name)
        whole.unlink()
        for extra in tmp_path.glob("b.db*"):
            shutil.rmtree(extra) if extra.is_dir() else extra.unlink()
    assert kept == [
        [(False, 0), (False, 0)],  # the first save: nothing to keep
        [(True, 10), (True, 10)],
        [(True, 20), (True, 20)],  # 20 = 160 / 8
        [(False, 0), (False, 0)],  # 50 would pass it: merged
    ]
    assert answers(m, PROBES) == fresh_answers(db, PROBES)
    m.indexes.invalidate()  # reopened from the merged snapshot
    m.store.close()
    m = open_memory(db)
    m.add(lines(11, 210, 5))
    m.indexes.save()
    m.store.close()
    m = open_memory(db)  # base + delta + nothing in the tail
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}
    assert m.indexes.fingerprints().postings.delta.n_docs == 5
    assert answers(m, PROBES + ["ep_212"]) == fresh_answers(db, PROBES + ["ep_212"])
    m.store.close()


def scores(got: dict) -> dict:
    """Ids and scores, but only scores for the vector channels: with HNSW, which of several
    rows with the same cosine fill the last places depends on the graph."""
    return {
        probe: {
            ch: [s for _, s in hits] if ch[:2] in ("S2", "M.") else hits
            for ch, hits in by_channel.items()
        }
        for probe, by_channel in got.items()
    }


def test_after_a_save_the_tail_is_released_and_the_next_save_is_incremental(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(12, 0, 50))
    first = m.indexes.save()
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}  # reopened from the snapshot just written
    m.add(lines(12, 50, 20))
    second = m.indexes.save()
    assert second is not None and first is not None and not first.exists()
    assert all(e["rows_linked"] for e in vector_entries(second))
    raw, width = rows_file(second, "L2")
    assert raw.stat().st_nlink == 1 and raw.stat().st_size == (70 + (width == 8)) * width
    assert answers(m, ["ep_60", "ep_1"]) == fresh_answers(db, ["ep_60", "ep_1"])
    m.store.close()


def test_a_save_from_an_older_snapshot_rewrites_instead_of_appending(tmp_path):
    db = tmp_path / "m.db"
    build(db, steps=[(0, 60)])
    older = open_memory(db)
    older.search("ep_1", channels=["S2"])  # opens the vectors from the first snapshot
    newer = open_memory(db)
    newer.add(lines(11, 60, 20))
    newer.indexes.save()  # appends to the rows file the older reader has mapped
    assert answers(older, ["ep_1", "ep_70"]) == fresh_answers(db, ["ep_1", "ep_70"])
    older.add(lines(11, 80, 10))
    folder = older.indexes.save()  # L2/L3 came from the first snapshot, no longer live
    assert folder is not None
    assert {k.split(":")[1] if ":" in k else k: v for k, v in linked(folder).items()} == {
        "fp": False,
        "mac": False,
        "L0": True,  # opened only now, from the live snapshot
        "L2": False,
        "L3": False,
    }
    assert answers(older, ["ep_85", "ep_70"]) == fresh_answers(db, ["ep_85", "ep_70"])
    newer.store.close()
    older.store.close()


CHILD = textwrap.dedent("""
    import sys, time
    import analogist.retrieve.indexes as indexes
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder
    from tests.scale.episodes import lines
    m = Memory(sys.argv[1], embedder=HashingEmbedder())
    m.add(lines(13, 0, 60))
    m.indexes.save()
    m.add(lines(13, 60, 30))
    def stop(*args, **kw):  # rows appended to the shared file, graph written, not published
        print("appended", flush=True)
        time.sleep(60)
    indexes.publish = stop
    m.indexes.save()
""")


def test_kill_9_in_the_middle_of_an_incremental_save(tmp_path):
    db = tmp_path / "m.db"
    kill_when(CHILD, db, "appended")
    live = Path(os.path.realpath(db.parent / "m.db.idx" / "current"))
    raw, width = rows_file(live, "L2")
    extra = width == 8  # sparse rows' pointers: one more than the rows
    assert raw.stat().st_size == (90 + extra) * width  # the dead save's rows past the live 60
    m = open_memory(db)
    assert tails(m) == {"fp": 30, "mac": 30, "L2": 30}  # the live snapshot, caught up
    probes = ["ep_75", "ep_2"]
    assert answers(m, probes) == fresh_answers(db, probes)
    m.add(lines(13, 90, 5))
    folder = m.indexes.save()
    assert folder is not None and all(e["rows_linked"] for e in vector_entries(folder))
    assert rows_file(folder, "L2")[0].stat().st_size == (95 + extra) * width
    m.store.close()
    m = open_memory(db)
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}
    assert answers(m, [*probes, "ep_93"]) == fresh_answers(db, [*probes, "ep_93"])
    m.store.close()


def test_a_format_1_snapshot_opens_and_the_next_save_upgrades_it(tmp_path, kind):
    db = tmp_path / "m.db"
    live = build(db, steps=[(0, 50)])
    man = manifest(live)  # rewrite it as the previous format wrote it: rows as .npy
    for key, entry in man["indexes"].items():
        if key.startswith("vec:"):
            level = key.split(":")[1]
            rows = dense_rows(live, level, entry["n"])
            prefix = next(live.glob(f"vec_{level}_*ids.npy")).name[: -len("ids.npy")]
            np.save(live / f"{prefix}rows.npy", rows)
            drop_rows_files(live, level)
            for field in ("rows", "rows_linked", "hnsw_extended", "lists", "lists_extended"):
                entry.pop(field, None)
    man["format"] = 1
    (live / "manifest.json").write_text(json.dumps(man))
    m = open_memory(db)
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}  # opened, not rebuilt
    m.add(lines(11, 50, 10))
    folder = m.indexes.save()
    assert folder is not None and manifest(folder)["format"] == FORMAT
    for e in vector_entries(folder):
        assert not e["rows_linked"] and extended(e, kind) == (kind == "lists" or HNSW)
    assert answers(m, ["ep_55", "ep_5"]) == fresh_answers(db, ["ep_55", "ep_5"])
    m.store.close()


def test_a_lists_snapshot_with_dense_rows_opens_and_the_next_save_makes_them_sparse(tmp_path):
    """Snapshots written before sparse rows kept a lists level's rows as ``rows.f32``: such a
    snapshot opens as it is, and the next save writes the rows sparse and extends the lists."""
    db = tmp_path / "m.db"
    live = build(db, steps=[(0, 50)])
    prefixes = {}
    for key, entry in manifest(live)["indexes"].items():
        if key.startswith("vec:"):
            level = key.split(":")[1]
            rows = dense_rows(live, level, entry["n"])
            prefix = next(live.glob(f"vec_{level}_*ids.npy")).name[: -len("ids.npy")]
            drop_rows_files(live, level)
            rows.tofile(live / f"{prefix}rows.f32")
            prefixes[level] = prefix
    m = open_memory(db)
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}  # opened, not rebuilt
    assert isinstance(m.indexes.vectors("L2").base, np.memmap | np.ndarray)
    m.add(lines(11, 50, 10))
    folder = m.indexes.save()
    assert folder is not None
    for e in vector_entries(folder):
        assert e["rows"] == "sparse" and not e["rows_linked"] and e["lists_extended"]
    for prefix in prefixes.values():
        assert not (folder / f"{prefix}rows.f32").exists()
        assert (folder / f"{prefix}sparse_indptr.bin").stat().st_size == 61 * 8
    assert answers(m, ["ep_55", "ep_5"]) == fresh_answers(db, ["ep_55", "ep_5"])
    m.store.close()
