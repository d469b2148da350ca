"""SAGE generalisation: hand-checked fact probabilities, role variables, low facts, pools."""

from __future__ import annotations

from analogist.learn.evidence import VerifiedAnalogy
from analogist.learn.facts import SchemaFact, signature_facts
from analogist.learn.generalise import InductionPolicy, Pools
from analogist.learn.induce import induce_one
from analogist.retrieve.schemas import parse_schema
from analogist.signature import parse_signature
from analogist.signature.vocabulary import default_vocabulary
from tests.learn.helpers import other, sig

V = default_vocabulary()


def parsed(raw: dict):
    return parse_signature(raw, V)


def pair(run: str, s: dict, t: dict, role_map: dict, context: str = "failure/t1"):
    return VerifiedAnalogy(
        run, parsed(s), parsed(t), True, tuple(sorted(role_map.items())), context, "critic"
    )


def test_facts_are_renamed_and_commutative_arguments_sorted():
    s = parsed(sig("ep_a_1", ("P", "Q", "R"), extra=True))
    facts = signature_facts(s, {"P": "X", "Q": "Y", "R": "A"}, V)
    assert SchemaFact("relation", "depends_on(X,Y)") in facts
    assert SchemaFact("relation", "shares_resource(A,X)") in facts  # sorted: commutative
    assert SchemaFact("causal", "fails(Y) --causes--> fails(X)") in facts
    assert SchemaFact("fix", "add_spare(Y)") in facts  # the qualifier is dropped


def test_three_exemplars_generalise_to_hand_checked_probabilities():
    """S1 (P,Q,R, with shares_resource) and S2 (U,V,W) start a generalisation through their
    verified map; S3 (K,L,M) is assimilated by SME. Expected by hand: the four shared facts at
    3/3, shares_resource(P,R) at 1/3 (low, out of the structure), role variables P, Q, R."""
    pools = Pools(V, InductionPolicy())
    changed: set[str] = set()
    s1 = sig("ep_a_1", ("P", "Q", "R"), extra=True)
    s2 = sig("ep_b_2", ("U", "V", "W"))
    s3 = sig("ep_c_3", ("K", "L", "M"))
    e1 = induce_one(pools, pair("r1", s1, s2, {"P": "U", "Q": "V", "R": "W"}), changed)
    assert e1.action == "started"
    e2 = induce_one(pools, pair("r2", s1, s3, {"P": "K", "Q": "L", "R": "M"}), changed)
    assert e2.action == "assimilated" and e2.added == ("ep_c_3",)
    assert e2.scores[0][1] >= 0.7
    (g,) = pools.all()
    assert g.members == ["ep_a_1", "ep_b_2", "ep_c_3"]
    assert g.bindings["ep_c_3"] == {"K": "P", "L": "Q", "M": "R"}
    raw = g.to_json(InductionPolicy())
    probs = {f["fact"]: (f["p"], f["low"]) for f in raw["induction"]["facts"]}
    assert probs == {
        "depends_on(P,Q)": (1.0, False),
        "gates(R,P)": (1.0, False),
        "fails(Q) --causes--> fails(P)": (1.0, False),
        "add_spare(Q)": (1.0, False),
        "shares_resource(P,R)": (round(1 / 3, 6), True),
    }
    assert raw["relations"] == [["depends_on", "P", "Q"], ["gates", "R", "P"]]
    assert raw["causal_chain"] == [["fails(Q)", "causes", "fails(P)"]]
    assert raw["fix_operator"] == "add_spare(Q)"
    assert set(raw["roles"]) == {"P", "Q", "R"}
    schema = parse_schema(raw, g.members, V)  # the same validation as any schema
    assert schema.verified and schema.induction["runs"] == ["r1", "r2"]


def test_two_exemplars_share_half_and_a_half_fact_is_kept():
    pools = Pools(V, InductionPolicy())
    induce_one(
        pools,
        pair(
            "r1",
            sig("ep_a_1", ("P", "Q", "R"), extra=True),
            sig("ep_b_2", ("U", "V", "W")),
            {"P": "U", "Q": "V", "R": "W"},
        ),
        set(),
    )
    facts = pools.all()[0].to_json(InductionPolicy())["induction"]["facts"]
    assert {f["fact"]: f["p"] for f in facts}["shares_resource(P,R)"] == 0.5
    assert not any(f["low"] for f in facts)  # 0.5 is not below the 0.5 mark


def test_a_dissimilar_pair_starts_its_own_generalisation_and_repeats_confirm():
    pools = Pools(V, InductionPolicy())
    changed: set[str] = set()
    induce_one(
        pools,
        pair(
            "r1",
            sig("ep_a_1", ("P", "Q", "R")),
            sig("ep_b_2", ("U", "V", "W")),
            {"P": "U", "Q": "V", "R": "W"},
        ),
        changed,
    )
    ev = induce_one(
        pools,
        pair("r2", other("ep_x_1"), other("ep_y_2"), {"REQ": "REQ", "SRC": "SRC", "SCH": "SCH"}),
        changed,
    )
    assert ev.action == "started" and len(pools.all()) == 2
    again = induce_one(
        pools,
        pair(
            "r3",
            sig("ep_b_2", ("U", "V", "W")),
            sig("ep_a_1", ("P", "Q", "R")),
            {"U": "P", "V": "Q", "W": "R"},
        ),
        changed,
    )
    assert again.action == "confirmed"
    assert pools.all()[0].times_verified == 2


def test_pools_are_per_context():
    pools = Pools(V, InductionPolicy())
    induce_one(
        pools,
        pair(
            "r1",
            sig("ep_a_1", ("P", "Q", "R")),
            sig("ep_b_2", ("U", "V", "W")),
            {"P": "U", "Q": "V", "R": "W"},
        ),
        set(),
    )
    ev = induce_one(
        pools,
        pair(
            "r2",
            sig("ep_c_3", ("K", "L", "M")),
            sig("ep_d_4", ("E", "F", "G")),
            {"K": "E", "L": "F", "M": "G"},
            context="success/t1",
        ),
        set(),
    )
    assert ev.action == "started"  # not assimilated across contexts
    assert sorted(pools.by_context) == ["failure/t1", "success/t1"]


def test_threshold_is_the_normalised_sme_score():
    strict = Pools(V, InductionPolicy(assimilation_threshold=1.0))
    induce_one(
        strict,
        pair(
            "r1",
            sig("ep_a_1", ("P", "Q", "R"), extra=True),
            sig("ep_b_2", ("U", "V", "W"), extra=True),
            {"P": "U", "Q": "V", "R": "W"},
        ),
        set(),
    )
    ev = induce_one(
        strict,
        pair(
            "r2",
            sig("ep_c_3", ("K", "L", "M")),
            sig("ep_d_4", ("E", "F", "G")),
            {"K": "E", "L": "F", "M": "G"},
        ),
        set(),
    )
    assert ev.action == "started"  # below a perfect normalised score: not assimilated
