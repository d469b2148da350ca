"""HNSW search settings (retrieve/ann.py): ef_search per level from ``ANALOGIST_HNSW_EF`` (one
number or ``LEVEL=N`` pairs), the limit a PostgreSQL memory puts on the default, and a bad setting
in one line."""

from __future__ import annotations

import numpy as np
import pytest

from analogist.errors import ConfigError
from analogist.retrieve import ann
from analogist.retrieve.ann import Hnsw, expansion_search, expansion_search_text


@pytest.fixture
def no_env(monkeypatch):
    monkeypatch.delenv("ANALOGIST_HNSW_EF", raising=False)
    return monkeypatch


def test_defaults_per_level(no_env):
    for level in ("L0", "L2", "L3"):
        want = ann.EXPANSION_SEARCH_BY_LEVEL.get(level, ann.EXPANSION_SEARCH)
        assert expansion_search(level) == want
    assert expansion_search() == ann.EXPANSION_SEARCH


def test_one_number_sets_every_level(no_env):
    no_env.setenv("ANALOGIST_HNSW_EF", "123")
    assert [expansion_search(lv) for lv in ("L0", "L2", "L3")] == [123, 123, 123]
    assert expansion_search_text(("L0", "L2", "L3")) == "123"


def test_level_pairs_set_those_levels_only(no_env):
    no_env.setenv("ANALOGIST_HNSW_EF", "L0=3000, L3=77")
    assert expansion_search("L0") == 3000
    assert expansion_search("L3") == 77
    assert expansion_search("L2") == ann.EXPANSION_SEARCH_BY_LEVEL.get("L2", ann.EXPANSION_SEARCH)
    assert expansion_search_text(("L0", "L2", "L3")).startswith("L0 3000, L2 ")


@pytest.mark.parametrize("raw", ["0", "-5", "fast", "L9=100", "L0=", "L0=1e3", "L0:100"])
def test_a_bad_setting_is_one_line(no_env, raw):
    no_env.setenv("ANALOGIST_HNSW_EF", raw)
    with pytest.raises(ConfigError) as err:
        expansion_search("L0")
    assert "\n" not in str(err.value) and "L0=3200,L2=400" in str(err.value)


def test_limit_caps_the_default_not_an_explicit_setting(no_env):
    no_env.setattr(ann, "EXPANSION_SEARCH_BY_LEVEL", {"L0": 5000})
    assert expansion_search("L0", limit=1000) == 1000
    assert expansion_search("L2", limit=1000) == min(ann.EXPANSION_SEARCH, 1000)
    no_env.setenv("ANALOGIST_HNSW_EF", "L0=4000")
    assert expansion_search("L0", limit=1000) == 4000  # pg_vectors.ef_for rejects it, loudly


@pytest.mark.skipif(ann.available() is not None, reason=f"HNSW unavailable: {ann.available()}")
def test_an_opened_graph_searches_with_its_levels_ef(no_env, tmp_path):
    rows = np.eye(16, dtype=np.float32)
    path = tmp_path / "g.usearch"
    Hnsw.build(rows).save(path)
    no_env.setenv("ANALOGIST_HNSW_EF", "L2=321")
    assert Hnsw.open(path, "L2").index.expansion_search == 321  # type: ignore[attr-defined]
    assert Hnsw.open(path, "L0").index.expansion_search == expansion_search("L0")  # type: ignore[attr-defined]


@pytest.mark.skipif(ann.available() is not None, reason=f"HNSW unavailable: {ann.available()}")
def test_a_graph_is_built_with_its_levels_connectivity(no_env):
    rows = np.eye(16, dtype=np.float32)
    for level in ("L0", "L2", "L3"):
        want = ann.CONNECTIVITY_BY_LEVEL.get(level, ann.CONNECTIVITY)
        assert Hnsw.build(rows, level=level).index.connectivity == want  # type: ignore[attr-defined]
    assert ann.CONNECTIVITY_BY_LEVEL.get("L3", ann.CONNECTIVITY) != ann.CONNECTIVITY


@pytest.mark.skipif(ann.available() is not None, reason=f"HNSW unavailable: {ann.available()}")
def test_near_ties_the_bf16_graph_cannot_order_are_rescored_exactly():
    """Forty rows whose cosines with the query differ below bf16's resolution, among others
    far away: the graph alone cannot tell which ten are best, the search (k + RESCORE_EXTRA
    candidates re-scored from the float32 rows) returns exactly the exact scan's ten."""
    from analogist.retrieve.dense import VectorIndex
    from analogist.retrieve.frozen import IdTable

    rng = np.random.default_rng(7)
    q = rng.normal(size=64).astype(np.float32)
    q /= np.linalg.norm(q)
    near = q + rng.normal(scale=1e-3, size=(40, 64)).astype(np.float32)
    far = rng.normal(size=(460, 64)).astype(np.float32)
    rows = np.concatenate([near, far])
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    ids = IdTable.build([f"e{i}" for i in range(len(rows))])
    idx = VectorIndex(64, base=rows, ids=ids, ann=Hnsw.build(rows))
    want = [ids[int(i)] for i in np.argsort(-(rows @ q), kind="stable")[:10]]
    assert [e for e, _ in idx.search(q, 10)] == want
    assert ann.RESCORE_EXTRA >= 30  # all forty near ties are within reach of the re-scoring
