"""S3 with an induced schema installed in another memory: instances, ranked by agreement with
the target on the schema's features (hand-checked)."""

from __future__ import annotations

from analogist.signature import parse_signature
from tests.learn.helpers import memory, other, sig


def schema_json() -> dict:
    s = sig("sch_x", ("P", "Q", "R"), extra=True)
    body = {k: s[k] for k in ("kind", "roles", "relations", "causal_chain", "fix_operator")}
    return {
        "schema_id": "sch_x",
        **body,
        "verified": True,
        "levels": {"L3": "x"},
        "induction": {"context": "failure/t1", "members": ["elsewhere_1", "elsewhere_2"]},
    }


def test_instance_with_the_targets_part_of_the_schema_comes_first():
    m = memory(
        sig("ep_full_1", ("A", "B", "C"), extra=True),
        sig("ep_part_2", ("D", "E", "F")),
        other("ep_other_3"),
    )
    m.add_schema(schema_json(), [])  # induced elsewhere: no stored member here
    target = parse_signature(sig("tgt_t", ("U", "V", "W")), m.store.vocabulary)
    hits = m.search(target, channels="S3").hits["S3"]
    # the target lacks shares_resource, like ep_part_2: agreement 1.0 beats the full instance
    assert [h.episode_id for h in hits] == ["ep_part_2", "ep_full_1"]
    assert all(h.detail["via"] == "instance" for h in hits)
    assert hits[1].detail["instance_fit"] == 1.0 > hits[0].detail["instance_fit"]
    full = parse_signature(sig("tgt_f", ("U", "V", "W"), extra=True), m.store.vocabulary)
    assert [h.episode_id for h in m.search(full, channels="S3").hits["S3"]][0] == "ep_full_1"


def test_an_induced_schema_without_members_is_refused_only_when_hand_added():
    import pytest

    from analogist.errors import SignatureError

    m = memory(sig("ep_full_1", ("A", "B", "C")))
    raw = schema_json()
    del raw["induction"]
    with pytest.raises(SignatureError, match="at least one member"):
        m.add_schema(raw, [])
