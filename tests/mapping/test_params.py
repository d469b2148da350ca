"""SMEParams mirror SME's parameter object under its Lisp names."""

from __future__ import annotations

import json

import pytest

from analogist.errors import MappingError
from analogist.mapping import SMEParams
from tests.mapping.helpers import PUBLISHED


def test_lisp_names_round_trip():
    fixture = {
        "greedy-max-#": 2,
        "functor-trickle-down?": True,
        "max-local-score": None,
        "use-less-greedy-greedy-merge?": False,
        "trickle-down": 8.0,
    }
    params = SMEParams.from_fixture_dict(fixture)
    assert params.greedy_max == 2 and params.functor_trickle_down
    assert not params.use_less_greedy_greedy_merge and params.trickle_down == 8.0
    out = params.to_fixture_dict()
    assert {k: out[k] for k in fixture} == fixture
    assert SMEParams.from_fixture_dict(out) == params
    assert len(out) == 19


def test_every_fixture_parameter_is_known_and_defaults_equal_the_regression_runs():
    for path in PUBLISHED.glob("*.expected.json"):
        given = json.loads(path.read_text())["params"]
        assert SMEParams.from_fixture_dict(given).to_fixture_dict() == given
        assert SMEParams().to_fixture_dict() == given


def test_unknown_names_list_the_valid_ones():
    with pytest.raises(MappingError, match=r"unknown SME parameter 'greedy-max'.*greedy-max-#"):
        SMEParams.from_fixture_dict({"greedy-max": 2})


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"greedy_cutoff": 1.5}, "greedy-cutoff"),
        ({"greedy_max": 0}, "greedy-max-#"),
        ({"max_local_score": 0.0}, "max-local-score"),
    ],
)
def test_out_of_range_values_are_rejected(changes, message):
    with pytest.raises(MappingError, match=message):
        SMEParams(**changes)


def test_params_are_frozen_and_hashable():
    p = SMEParams()
    assert hash(p) == hash(SMEParams()) and p.with_values(greedy_max=1).greedy_max == 1
    with pytest.raises(AttributeError):
        p.greedy_max = 2  # type: ignore[misc]
