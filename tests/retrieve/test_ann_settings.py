"""HNSW search settings (retrieve/ann.py): ef_search per level from ``ANALOGIST_HNSW_EF`` (one
number or ``LEVEL=N`` pairs), the limit a PostgreSQL memory puts on the default, a bad setting
in one line, and the extra candidates a search asks of the graph and re-scores exactly."""

from __future__ import annotations

import numpy as np
import pytest

from analogist.errors import ConfigError
from analogist.retrieve import ann
from analogist.retrieve.ann import Hnsw, expansion_search, expansion_search_text
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.frozen import IdTable


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
    assert expansion_search_text() == "123"


def test_level_pairs_set_those_levels_only(no_env):
    no_env.setenv("ANALOGIST_HNSW_EF", "L0=3000, L3=77")
    assert expansion_search("L0") == 3000
    assert expansion_search("L3") == 77
    assert expansion_search("L2") == ann.EXPANSION_SEARCH_BY_LEVEL.get("L2", ann.EXPANSION_SEARCH)
    assert expansion_search_text().startswith("L0 3000, L2 ")


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


class Recording:
    """A stand-in graph: returns the first ``k`` rows and records ``k``."""

    def __init__(self, order: np.ndarray):
        self.order, self.asked = order, []

    def __len__(self) -> int:
        return len(self.order)

    def candidates(self, query: np.ndarray, k: int) -> np.ndarray:
        self.asked.append(k)
        return self.order[:k]


def test_extra_candidates_are_asked_of_the_graph_and_rescored_exactly():
    rng = np.random.default_rng(3)
    rows = rng.standard_normal((50, 8)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    q = rows[0]
    truth = np.argsort(-(rows @ q), kind="stable")
    # a graph whose own ranking puts the true 2nd and 3rd best just past k = 3
    order = np.concatenate([truth[[0, 3, 4, 1, 2]], truth[5:]])
    graph = Recording(order)
    idx = VectorIndex(8, base=rows, ids=IdTable.build([f"e{i}" for i in range(50)]), ann=graph)  # type: ignore[arg-type]
    idx.extra_candidates = 0
    assert [e for e, _ in idx.search(q, 3)] == [f"e{truth[0]}", f"e{truth[3]}", f"e{truth[4]}"]
    idx.extra_candidates = 2
    got = idx.search(q, 3)
    assert graph.asked == [3, 5]
    assert [e for e, _ in got] == [f"e{i}" for i in truth[:3]]
    assert all(abs(s - float(rows[int(e[1:])] @ q)) < 1e-6 for e, s in got)


@pytest.mark.skipif(ann.available() is not None, reason=f"HNSW unavailable: {ann.available()}")
def test_an_opened_graph_searches_with_its_levels_ef(no_env, tmp_path):
    rows = np.eye(16, dtype=np.float32)
    path = tmp_path / "g.usearch"
    Hnsw.build(rows).save(path)
    no_env.setenv("ANALOGIST_HNSW_EF", "L2=321")
    assert Hnsw.open(path, "L2").index.expansion_search == 321  # type: ignore[attr-defined]
    assert Hnsw.open(path, "L0").index.expansion_search == expansion_search("L0")  # type: ignore[attr-defined]
