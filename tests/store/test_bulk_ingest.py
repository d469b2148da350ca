"""The bulk ingest path stores exactly what the per-episode path stores and answers the same;
a failure or a kill -9 in the middle of a bulk add leaves the store consistent; structures are
derived once and the memoised results equal a direct computation."""

from __future__ import annotations

import json
import random
import textwrap

import pytest

from analogist.errors import StoreError
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.retrieve.mac import mac_features
from analogist.retrieve.structure_memo import StructureMemo, structure_key
from analogist.signature.fingerprint import WLFingerprint, commutative_terms
from analogist.signature.model import parse_signature
from analogist.store import db as store_db
from analogist.store.index_sync import INSERT_TRIGGERS
from tests.scale.killed import kill_when

SHAPES = [
    ([("derives_from", "B", "A"), ("trusts_as_authoritative", "C", "B")], "diverges_from(B,A)"),
    ([("holds", "A", "C"), ("waits_for", "B", "C"), ("starves", "A", "B")], "starves(A,B)"),
    ([("retries", "A", "B"), ("depends_on", "A", "B")], "retries(A,B)"),
    ([("races_with", "A", "B"), ("sends_to", "A", "C")], "races_with(B,A)"),
]
EXTRA = ["depends_on", "sends_to", "observes", "holds", "waits_for"]
CHANNELS = ["S0", "S1", "S2.L2", "S2.L3", "M.emb", "M.bm25"]


def episode(rng: random.Random, eid: str) -> str:
    """One JSONL line: a shape with renamed roles, shuffled relations, maybe an extra relation
    and a causal link (so memoised structures repeat under other names and orders)."""
    rels, cause = rng.choice(SHAPES)
    rels = list(rels)
    if rng.random() < 0.4:
        a, b = rng.sample("ABC", 2)
        rels.append((rng.choice(EXTRA), a, b))
    rng.shuffle(rels)
    rename = dict(zip("ABC", rng.sample([f"R{i}" for i in range(9)], 3)))
    for k, v in rename.items():
        cause = cause.replace(k, v)
    words = " ".join(f"w{rng.randrange(200)}" for _ in range(8))
    sig = {
        "episode_id": eid,
        "kind": "failure",
        "roles": {r: f"role {r}" for r in sorted(rename.values())},
        "relations": [[p, rename[a], rename[b]] for p, a, b in rels],
        "causal_chain": [[cause, "causes", f"fails({rename['C']})"]] if rng.random() < 0.7 else [],
        "levels": {"L0": words, "L2": words[:20], "L3": words[:9]},
    }
    return json.dumps({"id": eid, "kind": "failure", "text": words, "signature": sig})


def lines(n: int, seed: int = 0, start: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [episode(rng, f"ep_{i}") for i in range(start, start + n)]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    """``added_at`` is the wall clock; fix it so rows of two memories can be compared."""
    monkeypatch.setattr("analogist.store.episodes.utcnow", lambda: "2026-12-02T06:00:00Z")


def memory(target: str) -> Memory:
    m = Memory(target, embedder=HashingEmbedder())
    m.indexes.exact_vectors = True
    return m


def rows(m: Memory) -> dict[str, list]:
    """Every stored row of the tables an add writes, in rowid order (SQLite)."""
    conn = m.store.conn
    out = {}
    for t in ("episodes", "episodes_fts", "signatures", "sig_relations", "sig_fingerprint"):
        out[t] = [tuple(r) for r in conn.execute(f"SELECT rowid, * FROM {t} ORDER BY rowid")]
    out["sig_vectors"] = [
        tuple(r) for r in conn.execute("SELECT rowid, * FROM sig_vectors ORDER BY rowid")
    ]
    out["vocab"] = [tuple(r) for r in conn.execute("SELECT * FROM vocab ORDER BY term")]
    out["index_state"] = [tuple(r) for r in conn.execute("SELECT * FROM index_state")]
    return out


def schema(m: Memory) -> set[tuple]:
    return {
        tuple(r)
        for r in m.store.conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
    }


def answers(m: Memory, probes: list[str]) -> dict:
    return {
        p: {ch: [(h.episode_id, round(h.score, 5)) for h in hits] for ch, hits in pool.hits.items()}
        for p in probes
        for pool in [m.search(p, channels=CHANNELS, k=5)]
    }


def test_bulk_rows_and_answers_are_those_of_the_per_episode_path(tmp_path):
    data = lines(300)
    one = memory(str(tmp_path / "one.db"))
    for line in data:
        assert one.add([line]).added
    bulk = memory(str(tmp_path / "bulk.db"))  # into an empty memory: indexes rebuilt after
    assert len(bulk.add(data).added) == 300
    mixed = memory(str(tmp_path / "mixed.db"))  # small first, then bulk batches
    mixed.add(data[:10])
    for a in range(10, 300, 97):
        mixed.add(data[a : a + 97])
    reference = rows(one)
    assert rows(bulk) == reference
    assert rows(mixed) == reference
    assert schema(bulk) == schema(one) == schema(mixed)  # triggers and indexes all back
    probes = ["ep_3", "ep_150", "ep_299"]
    assert answers(bulk, probes) == answers(one, probes) == answers(mixed, probes)
    assert bulk.structures.hits > 100  # the shapes repeat under other names and orders
    for m in (one, bulk, mixed):
        m.close()


def test_a_bulk_add_folded_into_built_indexes_answers_as_the_per_episode_path(tmp_path):
    """Indexes opened from a snapshot (a frozen base) and folded into by bulk adds and by small
    ones answer right after the add, and after a save and a reopen, exactly as a memory filled
    one episode at a time."""
    data = lines(400, seed=3)
    probes = ["ep_3", "ep_150", "ep_399"]
    one = memory(str(tmp_path / "one.db"))
    for line in data:
        assert one.add([line]).added
    reference = answers(one, probes)
    path = str(tmp_path / "bulk.db")
    m = memory(path)
    m.add(data[:40])
    assert m.indexes.save() is not None
    m.close()
    m = memory(path)
    answers(m, ["ep_3"])  # every index opened from the snapshot: base plus an empty tail
    built = (m.indexes._fp, m.indexes._mac, dict(m.indexes._vectors))
    assert all(built[:2]) and len(built[2]) == 3
    for a, b in ((40, 240), (240, 250), (250, 400)):  # bulk (>= 64), small, bulk
        assert len(m.add(data[a:b]).added) == b - a
    assert (m.indexes._fp, m.indexes._mac, dict(m.indexes._vectors)) == built  # folded, kept
    assert len(m.indexes._fp) == len(m.indexes._mac) == 400
    assert answers(m, probes) == reference
    assert rows(m) == rows(one)
    assert m.indexes.save() is not None
    m.close()
    again = memory(path)
    assert answers(again, probes) == reference
    assert again.indexes._source  # opened from the snapshot written after the folds
    for x in (one, again):
        x.close()


def test_a_bulk_add_drops_only_the_per_row_triggers_and_restores_them(tmp_path, monkeypatch):
    """On SQLite the appended tables have no secondary index (``0007_relations_column``), so
    neither a load larger than the memory (PostgreSQL rebuilds its vector graphs after one)
    nor a smaller one drops an index; both switch the per-row triggers off and back on."""
    monkeypatch.setattr("analogist.store.store.BULK_INDEX_MIN", 50)
    seen = []
    real = store_db.Connection.execute

    def spy(self, sql, *args):
        seen.append(sql.split("(")[0].strip())
        return real(self, sql, *args)

    monkeypatch.setattr(store_db.Connection, "execute", spy)
    m = memory(str(tmp_path / "m.db"))
    for batch in (lines(100), lines(70, start=100)):  # larger, then smaller than the memory
        seen.clear()
        m.add(batch)
        assert not any(s.startswith("DROP INDEX") for s in seen)
        assert {s.split()[-1] for s in seen if s.startswith("DROP TRIGGER")} == set(INSERT_TRIGGERS)
    names = {r[0] for r in m.store.conn.execute("SELECT name FROM sqlite_master")}
    assert set(INSERT_TRIGGERS) <= names
    m.close()


def test_a_failure_inside_a_bulk_add_restores_everything(tmp_path, monkeypatch):
    m = memory(str(tmp_path / "m.db"))
    m.add(lines(5))
    before, shape = rows(m), schema(m)

    def boom(*a, **k):
        raise StoreError("disk full")

    monkeypatch.setattr(m.store, "_put_derived_many", boom)
    with pytest.raises(StoreError):
        m.add(lines(100, start=5))
    assert rows(m) == before and schema(m) == shape
    monkeypatch.undo()
    m.add(lines(100, start=5))
    st = m.store.index_state()
    assert st.generation == sum(
        len(rows(m)[t]) for t in ("signatures", "sig_fingerprint", "sig_vectors")
    )
    m.close()


CHILD = textwrap.dedent("""
    import sys, time
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder
    from tests.store.test_bulk_ingest import lines
    m = Memory(sys.argv[1], embedder=HashingEmbedder())
    m.add(lines(200))
    m.indexes.save()
    m.add(lines(100, start=200))  # committed, not in the snapshot
    real = m.store._put_derived_many
    def stall(*a, **k):
        n = real(*a, **k)
        print("mid-write", flush=True)  # the triggers and indexes are dropped right now
        time.sleep(60)
        return n
    m.store._put_derived_many = stall
    m.add(lines(400, start=300))
""")


def test_kill_9_in_the_middle_of_a_bulk_add(tmp_path):
    db = tmp_path / "m.db"
    kill_when(CHILD, db, "mid-write")
    m = memory(str(db))
    assert m.store.count() == 300  # the killed add left nothing
    assert m.store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    names = {r[0] for r in m.store.conn.execute("SELECT name FROM sqlite_master")}
    assert set(INSERT_TRIGGERS) <= names
    got = rows(m)
    assert m.store.index_state().generation == sum(
        len(got[t]) for t in ("signatures", "sig_fingerprint", "sig_vectors")
    )
    probes = ["ep_250", "ep_7"]
    caught_up = answers(m, probes)  # the snapshot (200) plus the 100 read back from the db
    assert len(m.indexes.fingerprints().ids.tail) == 100
    m.store.close()
    fresh = memory(str(db))
    fresh.indexes.root = None
    assert caught_up == answers(fresh, probes)
    fresh.store.close()


def test_memoised_structures_equal_a_direct_computation():
    m = Memory(":memory:", embedder=HashingEmbedder())
    vocab = m.store.vocabulary
    wl, comm = WLFingerprint(), commutative_terms(vocab)
    sigs = [parse_signature(json.loads(line)["signature"], vocab) for line in lines(200, seed=3)]
    for s in sigs:
        row, mac = m.structures.derive(s, vocab)
        assert row == wl(s, vocab).as_row()
        assert mac == mac_features(s, comm)
    assert m.structures.hits > 0 and m.structures.misses < len(sigs)


def test_the_bounded_memo_keeps_a_recurring_structure_and_stays_within_two_generations():
    vocab = Memory(":memory:").store.vocabulary
    wl, comm = WLFingerprint(), commutative_terms(vocab)
    memo = StructureMemo(wl, limit=4)
    sigs = [parse_signature(json.loads(line)["signature"], vocab) for line in lines(300, seed=5)]
    keys = {structure_key(s) for s in sigs}
    assert len(keys) > 8  # more structures than two generations hold
    recurring, recomputed = sigs[0], 0
    memo.derive(recurring, vocab)
    for s in sigs[1:]:
        for t in (s, recurring):  # met between every other signature: never dropped
            before = memo.misses
            row, mac = memo.derive(t, vocab)
            recomputed += t is recurring and memo.misses > before
            assert row == wl(t, vocab).as_row() and mac == mac_features(t, comm)
            assert len(memo._memo) <= 4 and len(memo._previous) <= 4
    assert recomputed == 0
    assert memo.hits + memo.misses == 2 * len(sigs) - 1


def test_the_structure_key_ignores_names_and_order_but_not_structure():
    vocab = Memory(":memory:").store.vocabulary

    def sig(relations, chain=()):
        roles = sorted({r for rel in relations for r in rel[1:]})
        raw = {
            "episode_id": "e",
            "kind": "failure",
            "roles": {r: r for r in roles},
            "relations": [list(r) for r in relations],
            "causal_chain": [list(c) for c in chain],
            "levels": {"L0": "x"},
        }
        return parse_signature(raw, vocab)

    a = sig([("holds", "A", "C"), ("waits_for", "B", "C")], [("holds(A,C)", "causes", "fails(B)")])
    b = sig([("waits_for", "Y", "Z"), ("holds", "X", "Z")], [("holds(X,Z)", "causes", "fails(Y)")])
    c = sig([("holds", "A", "C"), ("waits_for", "C", "B")], [("holds(A,C)", "causes", "fails(B)")])
    d = sig([("holds", "A", "C"), ("waits_for", "B", "C")], [("holds(A,C)", "causes", "fails(A)")])
    assert structure_key(a) == structure_key(b)
    assert structure_key(a) != structure_key(c)
    assert structure_key(a) != structure_key(d)


def test_import_writes_as_a_bulk_append_and_a_failed_one_restores_the_schema(tmp_path):
    from analogist.store.transfer import export_to
    from analogist.store.transfer_check import TransferError
    from analogist.store.transfer_import import import_from

    src = memory(str(tmp_path / "src.db"))
    src.add(lines(120))
    src.close()
    export_to(str(tmp_path / "src.db"), str(tmp_path / "m.jsonl"))
    import_from(str(tmp_path / "m.jsonl"), str(tmp_path / "copy.db"))
    copy, again = memory(str(tmp_path / "copy.db")), memory(str(tmp_path / "src.db"))
    got, want = rows(copy), rows(again)
    assert got["index_state"][0][1] == want["index_state"][0][1] + 1  # + the import's rebuild
    assert {k: v for k, v in got.items() if k != "index_state"} == {
        k: v for k, v in want.items() if k != "index_state"
    }
    assert schema(copy) == schema(again)
    empty = memory(str(tmp_path / "empty.db"))
    shape = schema(empty)
    empty.close()
    text = (tmp_path / "m.jsonl").read_text().splitlines()
    header = json.loads(text[0])
    header["checksum"] = "sha256:" + "0" * 64  # fails after every record was written
    (tmp_path / "bad.jsonl").write_text("\n".join([json.dumps(header), *text[1:]]) + "\n")
    with pytest.raises(TransferError):
        import_from(str(tmp_path / "bad.jsonl"), str(tmp_path / "empty.db"))
    empty = memory(str(tmp_path / "empty.db"))
    assert schema(empty) == shape and empty.store.count() == 0
    for m in (copy, again, empty):
        m.close()
