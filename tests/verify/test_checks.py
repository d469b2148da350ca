"""Hand-computed §8.2 checks and the similarity/difference summary on a small pair."""

import copy

import pytest

from analogist.signature import parse_signature
from analogist.verify.checks import run_checks

TARGET = {
    "episode_id": "tgt_health",
    "kind": "failure",
    "roles": {
        "SENSOR": "sensor",
        "CACHE": "cache summary",
        "REPORTER": "health reporter",
        "TTL": "eviction timer",
    },
    "relations": [
        ["derives_from", "CACHE", "SENSOR"],
        ["trusts_as_authoritative", "REPORTER", "CACHE"],
        ["skips_check", "REPORTER", "SENSOR"],
        ["prevents", "TTL", "CACHE"],
    ],
    "causal_chain": [["skips_check(REPORTER,SENSOR)", "enables", "false_claim(REPORTER)"]],
    "levels": {"L0": "health reporter said green from a cached summary"},
}
MAP = {"SRC": "SENSOR", "DER": "CACHE", "CON": "REPORTER"}


@pytest.fixture
def pair(spec_example, vocab):
    return parse_signature(spec_example, vocab), parse_signature(TARGET, vocab)


def test_alignment_sorts_every_fact(pair, vocab):
    c = run_checks(*pair, MAP, vocab)
    a = c.alignment
    assert sorted(str(s) for s, _ in a.matches) == [
        "derives_from(DER, SRC)",
        "skips_check(CON, SRC)",
        "skips_check(CON,SRC) --enables--> false_claim(CON)",
        "trusts_as_authoritative(CON, DER)",
    ]
    assert sorted(str(f) for f in a.source_only) == [
        "diverges_from(DER, SRC)",
        "diverges_from(DER,SRC) --causes--> false_claim(CON)",
    ]
    assert [str(f) for f in a.non_alignable_target] == ["prevents(TTL, CACHE)"]
    assert a.alignable_differences == () and a.target_only == ()


def test_hand_computed_scores(pair, vocab):
    c = run_checks(*pair, MAP, vocab)
    assert c.one_to_one and c.coherent
    assert c.source_path_mapped == 0.5  # 1 of 2 source links
    assert c.target_path_explained == 1.0  # 1 of 1 target link
    assert c.systematicity == 0.5  # (1 link + skips_check) / (1 link + 3 relations)
    assert c.relation_overlap == 0.75  # 3 of max(4, 4)
    assert [str(f) for f in c.unmatched_blockers] == ["prevents(TTL, CACHE)"]
    assert c.score == pytest.approx(0.45 * 0.5 + 0.2 * 1 + 0.25 * 0.75 + 0.1 * 0.5)


def test_contradictory_sign_is_found(spec_example, vocab):
    t = copy.deepcopy(TARGET)
    t["causal_chain"] = [["skips_check(REPORTER,SENSOR)", "prevents", "false_claim(REPORTER)"]]
    c = run_checks(parse_signature(spec_example, vocab), parse_signature(t, vocab), MAP, vocab)
    assert len(c.contradictory_signs) == 1
    assert not c.coherent
    assert c.source_path_mapped == 0.0


def test_same_sign_different_link_is_an_alignable_difference_that_still_maps(spec_example, vocab):
    t = copy.deepcopy(TARGET)
    t["causal_chain"] = [["skips_check(REPORTER,SENSOR)", "causes", "false_claim(REPORTER)"]]
    c = run_checks(parse_signature(spec_example, vocab), parse_signature(t, vocab), MAP, vocab)
    assert len(c.alignment.alignable_differences) == 1
    assert c.source_path_mapped == 0.5 and not c.contradictory_signs


def test_one_to_one_violation(pair, vocab):
    c = run_checks(*pair, {"SRC": "SENSOR", "DER": "SENSOR", "CON": "REPORTER"}, vocab)
    assert not c.one_to_one
    assert "both map to target role 'SENSOR'" in c.role_violations[0]


def test_unknown_roles_are_violations(pair, vocab):
    c = run_checks(*pair, {"XX": "SENSOR", "DER": "NOPE"}, vocab)
    assert len(c.role_violations) == 2
