"""The fixtures' JSON notation and the human table of spec section 8.1."""

from __future__ import annotations

import json

from analogist.mapping import SMEParams, match, render_result, to_fixture_json
from tests.mapping.helpers import desc


def _pair():
    b = desc(
        "water", ["hits", "a", "b"], ["cause", ["hits", "a", "b"], ["near", "c", "a"]], ["red", "b"]
    )
    t = desc("heat", ["hits", "x", "y"], ["round", "y"])
    return b, t


def test_fixture_notation_writes_skolems_and_nested_lists():
    out = to_fixture_json(match(*_pair()))
    assert set(out) == {"mh_count", "kernel_count", "mapping_count", "mappings"}
    m = out["mappings"][0]
    assert set(m) == {"score", "mh_count", "entity_mhs", "root_mhs", "cis"}
    assert m["entity_mhs"] == [["a", "x"], ["b", "y"]]
    assert m["root_mhs"] == [[["hits", "a", "b"], ["hits", "x", "y"]]]
    assert ["cause", ["hits", "x", "y"], ["near", ["skolem", "c"], "x"]] in m["cis"]
    json.dumps(out)


def test_detailed_json_adds_inference_scores():
    out = to_fixture_json(
        match(*_pair(), SMEParams(compute_reverse_inferences=True)), detailed=True
    )
    m = out["mappings"][0]
    detail = {json.dumps(d["expression"]): d for d in m["ci_details"]}
    cause = detail[json.dumps(["cause", ["hits", "x", "y"], ["near", ["skolem", "c"], "x"]])]
    assert cause["skolems"] == ["c"] and cause["support"] > 0 and 0 < cause["extrapolation"] < 1
    assert [d["expression"] for d in m["reverse_cis"]] == [["round", "b"]]
    assert 0 < m["normalized_score"] <= 1


def test_table_has_the_spec_sections():
    text = render_result(match(*_pair()))
    for heading in (
        "SOURCE ENTITY    TARGET ENTITY",
        "MATCHED RELATIONS",
        "UNMATCHED SOURCE RELATIONS",
        "TARGET-ONLY FACTORS",
        "CANDIDATE INFERENCES",
    ):
        assert heading in text
    assert "a                x" in text
    assert "- (hits a b)  ->  (hits x y)" in text
    assert "- (red b)" in text.split("UNMATCHED SOURCE RELATIONS")[1]
    assert "- (round y)" in text.split("TARGET-ONLY FACTORS")[1]


def test_table_without_mappings_says_so():
    text = render_result(match(desc("b", ["hits", "a", "b"]), desc("t", ["near", "x", "y"])))
    assert "no structurally consistent mapping found" in text
