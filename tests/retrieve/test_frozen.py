"""Frozen (memory-mappable) posting lists and id tables answer exactly as the in-memory ones."""

from __future__ import annotations

import numpy as np
import pytest

from analogist.retrieve import frozen
from analogist.retrieve.frozen import IdTable, LayeredPostings
from analogist.retrieve.postings import Postings


def random_postings(n: int, seed: int) -> tuple[Postings, list[dict]]:
    rng = np.random.default_rng(seed)
    p, docs = Postings(), []
    for _ in range(n):
        f = {f"h{j}": int(rng.integers(1, 4)) for j in range(4) if rng.random() < 0.7}
        f.update({f"r{int(rng.integers(0, 400))}": float(rng.integers(1, 3)) for _ in range(4)})
        f["frac"] = 0.5 if rng.random() < 0.3 else 0
        docs.append(f)
        p.add(f)
    return p, docs


@pytest.mark.parametrize("hot_min", [10, 10**9])  # with and without dense hot columns
def test_frozen_postings_answer_as_the_in_memory_ones(monkeypatch, hot_min):
    monkeypatch.setattr(frozen, "HOT_MIN_DOCS", hot_min)
    p, _ = random_postings(600, 0)
    fz = LayeredPostings(tail=p).freeze()
    assert (len(fz.hot_slots) > 0) == (hot_min == 10)
    queries = [{"h0": 2, "h1": 1, "r5": 1, "r77": 3, "frac": 0.5, "unseen": 1}, {"h3": 9}]
    for q in queries:
        for how in ("dot", "min"):
            assert np.allclose(p.accumulate(q, how), fz.accumulate(q, how))
        for f in q:
            assert fz.df(f) == p.df(f)
            docs = np.arange(0, 600, 7)
            assert np.allclose(fz.weights_of(f, docs), p.weights_of(f, docs))
    assert np.allclose(fz.sums, p.sums) and np.allclose(fz.norms, p.norms)


def test_layered_postings_equal_one_index_over_base_and_tail():
    whole, docs = random_postings(500, 1)
    base = Postings()
    for f in docs[:300]:
        base.add(f)
    layered = LayeredPostings(LayeredPostings(tail=base).freeze())
    for f in docs[300:]:
        layered.add(f)
    q = {"h0": 1, "h2": 2, "r3": 1, "r100": 2}
    for how in ("dot", "min"):
        assert np.allclose(layered.accumulate(q, how), whole.accumulate(q, how))
    assert layered.df("h0") == whole.df("h0") and np.allclose(layered.sums, whole.sums)
    docs_q = np.array([1, 299, 300, 450])
    assert np.allclose(layered.weights_of("h1", docs_q), whole.weights_of("h1", docs_q))
    again = layered.freeze()
    assert np.allclose(again.accumulate(q, "min"), whole.accumulate(q, "min"))


@pytest.mark.parametrize("split", [0, 1, 250, 499, 500])
def test_freezing_base_and_tail_gives_the_arrays_of_freezing_everything_at_once(split):
    # The tail's entries go in at the end of their keys' runs in the base, and its new keys
    # among the base's: array for array (dtypes too) what one index over every document gives.
    _, docs = random_postings(500, 7)
    for f in docs[400:]:  # keys only the tail has
        f[f"new{len(f) % 5}"] = 3
    whole, base = Postings(), Postings()
    for f in docs:
        whole.add(f)
    for f in docs[:split]:
        base.add(f)
    layered = LayeredPostings(LayeredPostings(tail=base).freeze())
    for f in docs[split:]:
        layered.add(f)
    got, want = layered.freeze(), LayeredPostings(tail=whole).freeze()
    for name in frozen.FrozenPostings.ARRAYS:
        a, b = getattr(got, name), getattr(want, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name


@pytest.mark.parametrize("split", [(300, 300), (300, 380), (0, 0), (1, 499), (400, 500)])
def test_base_delta_and_tail_equal_one_index(split):
    # documents [0, a) in the base, [a, b) in the delta (frozen on its own, numbered from 0),
    # the rest in the tail: every read, and both freezes, as one index over all of them
    a, b = split
    whole, docs = random_postings(500, 3)
    for f in docs[450:]:  # keys only the tail has
        f[f"late{len(f) % 3}"] = 2
    whole = Postings()
    for f in docs:
        whole.add(f)
    first, second = Postings(), Postings()
    for f in docs[:a]:
        first.add(f)
    for f in docs[a:b]:
        second.add(f)
    layered = LayeredPostings(
        LayeredPostings(tail=first).freeze(), delta=LayeredPostings(tail=second).freeze()
    )
    assert layered.frozen_docs == b
    for f in docs[b:]:
        assert layered.add(f) >= b
    assert layered.n_docs == 500
    q = {"h0": 1, "h2": 2, "r3": 1, "r100": 2, "late1": 1, "frac": 0.5}
    for how in ("dot", "min"):
        assert np.allclose(layered.accumulate(q, how), whole.accumulate(q, how))
    sample = np.array([0, 1, a - 1, a, b - 1, b, 499]).clip(0, 499)
    for f in q:
        assert layered.df(f) == whole.df(f)
        d, w = layered.column(f)
        wd, ww = whole.column(f)
        assert np.array_equal(d, wd) and np.allclose(w, ww), f
        assert np.allclose(layered.weights_of(f, sample), whole.weights_of(f, sample))
    assert np.allclose(layered.sums, whole.sums) and np.allclose(layered.norms, whole.norms)
    got, want = layered.freeze(), LayeredPostings(tail=whole).freeze()
    for name in frozen.FrozenPostings.ARRAYS:
        x, y = getattr(got, name), getattr(want, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    later = Postings()
    for f in docs[a:]:
        later.add(f)
    got, want = layered.freeze_delta(), LayeredPostings(tail=later).freeze()
    for name in frozen.FrozenPostings.ARRAYS:
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


@pytest.mark.parametrize("weights", [(1, 7), (1, 300), (0.5, 2)])  # packed; wide; fractional
def test_postings_triples_lists_every_entry(weights):
    """The bulk read a save freezes from: every (feature, doc, weight) of the tail, single-
    document features included, as a per-feature read of ``column`` gives them."""
    from analogist.retrieve.postings import Postings

    rng, p = np.random.default_rng(3), Postings()
    for d in range(60):
        feats = {f"f{int(i)}": float(rng.choice(weights)) for i in rng.integers(0, 90, 6)}
        feats[f"only_{d}"] = float(weights[d % 2])  # a feature of one document
        p.add(feats)
    got = frozen.postings_triples(p, doc_offset=10)
    names = list(p.columns) + list(p._single)
    want = [(frozen.key64(f), int(d) + 10, float(w)) for f in names for d, w in zip(*p.column(f))]
    assert sorted(zip(got[0].tolist(), got[1].tolist(), got[2].tolist())) == sorted(want)
    assert got[1].dtype == np.int32 and got[2].dtype == np.float32


def test_id_table_lookup_and_tail():
    table = IdTable.build([f"ep_{i}" for i in range(50)])
    assert table.get("ep_17") == 17 and table[17] == "ep_17" and "ep_99" not in table
    assert table.append("new") == 50 and table.get("new") == 50 and len(table) == 51
    assert table.positions(["ep_3", "nope", "new"]) == [3, 50]
    merged = table.merged()
    assert list(merged) == list(table) and not merged.tail


def test_id_keys_remembers_the_last_ids_and_the_key_function(monkeypatch):
    ids = [f"ep_{i}" for i in range(20)]
    first = frozen.id_keys(ids)
    assert np.array_equal(first, frozen.keys64(ids)) and not first.flags.writeable
    assert frozen.id_keys(list(ids)) is first  # equal ids: not hashed again
    other = frozen.id_keys(ids[:19] + ["other"])
    assert other is not first and np.array_equal(other, frozen.keys64(ids[:19] + ["other"]))
    monkeypatch.setattr(frozen, "key64", len)  # another key function: hashed again
    assert frozen.id_keys(ids[:19] + ["other"]).tolist() == [len(e) for e in ids[:19]] + [5]


def test_extending_an_id_table_numbers_the_ids_as_appending_them_one_by_one():
    one, many = IdTable.build(["a", "b"]), IdTable.build(["a", "b"])
    for e in ["c", "d", "e"]:
        one.append(e)
    many.extend(["c", "d"])
    many.extend([])
    many.extend(["e"])
    assert list(many) == list(one) == ["a", "b", "c", "d", "e"]
    assert (
        [many.get(e) for e in "abcdez"] == [one.get(e) for e in "abcdez"] == [0, 1, 2, 3, 4, None]
    )
    assert many.tail == one.tail and many.fresh() == ["c", "d", "e"]


@pytest.mark.parametrize("weak", [False, True])  # real keys; keys that collide on purpose
def test_id_table_many_lookups_and_the_batch_check(monkeypatch, weak):
    if weak:  # every id of one length shares a key: found only by comparing the bytes
        monkeypatch.setattr(frozen, "key64", len)
    ids = [f"ep_{i}" for i in range(300)]
    table = IdTable.build(ids)
    table.append("tail_1")
    asked = ["ep_299", "nope", "tail_1", "ep_0", "ep_3000", "ep_12"]
    assert table.get_many(asked) == [table.get(e) for e in asked] == [299, None, 300, 0, None, 12]
    assert table.first_present(["a", "b", "c"]) is None
    assert table.first_present(["a", "ep_7", "tail_1"]) == "ep_7"
    assert table.first_present(["a", "b", "a", "tail_1"]) == "a"  # repeated within the batch


@pytest.mark.parametrize("weak", [False, True])  # real keys; keys that collide on purpose
def test_an_id_table_with_a_delta_reads_as_one_table(monkeypatch, weak):
    """Base + delta (what an incremental save writes) + tail: every lookup, the numbering
    and the merge are those of one table built from all the ids."""
    if weak:
        monkeypatch.setattr(frozen, "key64", len)
    ids = [f"ep_{i}" for i in range(240)] + ["x", "yy"]
    one = IdTable.build(ids[:200])
    delta = IdTable.build(ids[200:230])
    table = IdTable(one.base, one.order, one.sorted_keys, delta)
    for e in ids[230:]:
        table.append(e)
    whole = IdTable.build(ids)
    assert len(table) == len(whole) == 242 and table.frozen == 230
    assert list(table) == ids and [table[i] for i in (0, 199, 200, 229, 230, 241)] == [
        ids[i] for i in (0, 199, 200, 229, 230, 241)
    ]
    asked = ["ep_5", "ep_205", "yy", "nope", "ep_229", "ep_2400", "ep_230", "ep_199"]
    assert table.get_many(asked) == [table.get(e) for e in asked] == whole.get_many(asked)
    assert table.positions(asked) == whole.positions(asked)
    assert table.first_present(["a", "ep_210"]) == "ep_210" and "ep_210" in table
    assert table.fresh() == ids[200:]
    frozen_fresh, built = table.frozen_fresh(), IdTable.build(ids[200:])
    for name in ("base", "order", "sorted_keys"):
        assert np.array_equal(getattr(frozen_fresh, name), getattr(built, name)), name
    merged = table.merged()
    for name in ("base", "order", "sorted_keys"):
        assert np.array_equal(getattr(merged, name), getattr(whole, name)), name
    only = IdTable(None, None, None, delta)  # a delta without a base is the base
    assert only.delta is None and list(only) == ids[200:230] and only.get("ep_201") == 1


def test_a_batch_with_a_present_id_adds_nothing():
    from collections import Counter

    from analogist.retrieve.mac import MacIndex
    from analogist.retrieve.wl import FingerprintIndex

    mac = MacIndex()
    mac.add("a", Counter(x=1))
    with pytest.raises(ValueError, match="episode a is already in the MAC index"):
        mac.add_many([("b", Counter(x=1)), ("a", Counter(y=2))])
    with pytest.raises(ValueError, match="episode c is already in the MAC index"):
        mac.add_many([("c", Counter(x=1)), ("c", Counter(y=2))])
    assert list(mac.ids) == ["a"] and mac.postings.n_docs == 1
    fp = FingerprintIndex("v")
    fp.add("a", "h1", {"f": 1})
    with pytest.raises(ValueError, match="episode a is already fingerprinted"):
        fp.add_many([("b", "h2", {"f": 1}), ("a", "h1", {"f": 1})])
    assert list(fp.ids) == ["a"] and fp.tail_hashes == ["h1"]
