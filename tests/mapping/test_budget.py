"""The match-hypothesis budget: huge comparisons fail with one clear line, in bounded memory."""

from __future__ import annotations

import pytest

from analogist.errors import MappingError
from analogist.mapping import match
from analogist.mapping.hypotheses import DEFAULT_MH_BUDGET
from tests.mapping.helpers import desc


def _chain(n: int) -> list:
    return [["hits", f"e{i}", f"e{i + 1}"] for i in range(n)]


def test_default_budget_is_documented_and_generous_enough_for_signatures():
    assert DEFAULT_MH_BUDGET == 50_000
    d = desc("d", *_chain(60))
    assert match(d, d).mh_count < DEFAULT_MH_BUDGET


def test_too_many_seeds_fail_at_once_with_one_line():
    d = desc("d", *_chain(30))  # 900 hits~hits seeds
    with pytest.raises(MappingError) as err:
        match(d, d, mh_budget=500)
    message = str(err.value)
    assert "\n" not in message
    assert "needs more than 500 match hypotheses" in message and "mh_budget" in message


def test_growth_beyond_the_budget_also_fails():
    d = desc("d", *_chain(10))  # 100 seeds, but entity hypotheses and functors come on top
    full = match(d, d).mh_count
    assert full > 120
    with pytest.raises(MappingError, match="needs more than 120 match hypotheses"):
        match(d, d, mh_budget=120)
    assert match(d, d, mh_budget=full).mh_count == full


def test_a_10000_relation_self_map_fails_fast_in_bounded_memory():
    """The issue's huge input (10,000 relations; it used to be killed for memory): the seed
    count alone exceeds the default budget, so the comparison fails before building anything."""
    import tracemalloc

    d = desc("huge", *[["hits", f"e{i % 1250}", f"e{(i * 7 + 1) % 1250}"] for i in range(10_000)])
    tracemalloc.start()
    try:
        with pytest.raises(MappingError, match="needs more than 50,000 match hypotheses"):
            match(d, d)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50 * 2**20
