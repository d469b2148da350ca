"""Behaviour of the engine on small hand-checked cases (each test names the rule it protects)."""

from __future__ import annotations

import pytest

from analogist.errors import MappingError
from analogist.mapping import MatchFilters, SMEParams, match
from analogist.signature.description import Description, Expr, PredicateInfo, Skolem
from tests.mapping.helpers import PUBLISHED, desc, fixture_pair


def entity_pairs(mapping) -> set[tuple[str, str]]:
    return {(m.base, m.target) for m in mapping.entity_mhs}


def test_trickle_down_score_by_hand():
    # (hits a b) ~ (hits x y): relation 0.005; each entity 16 * 0.005; total 0.165.
    r = match(desc("b", ["hits", "a", "b"]), desc("t", ["hits", "x", "y"]))
    assert r.mh_count == 4 and r.kernel_count == 1
    assert r.best.score == pytest.approx(0.165)
    assert entity_pairs(r.best) == {("a", "x"), ("b", "y")}


def test_identical_descriptions_map_completely_with_normalised_score_one():
    facts = (
        ["cause", ["hits", "a", "b"], ["near", "a", "b"]],
        ["greater", ["mass", "a"], ["mass", "b"]],
    )
    r = match(desc("b", *facts), desc("t", *facts))
    best = r.best
    assert best.normalized_score == pytest.approx(1.0)
    assert best.candidate_inferences == ()
    assert set(best.mapped_base) == set(r.base.expressions) | {"a", "b"}


def test_relations_and_attributes_match_only_identically_functions_cross_dimensions():
    b = desc("b", ["greater", ["mass", "a"], ["mass", "b"]], ["red", "a"], ["hits", "a", "b"])
    t = desc("t", ["greater", ["heat", "x"], ["heat", "y"]], ["round", "x"], ["near", "x", "y"])
    r = match(b, t)
    kinds = {(str(h.base), str(h.target)) for h in r.hypotheses if h.kind == "expression"}
    assert ("(mass a)", "(heat x)") in kinds  # cross-dimensional function match
    assert not any(k[0].startswith(("(red", "(hits")) for k in kinds)
    no_cross = match(b, t, filters=MatchFilters(identical_functions=True))
    assert no_cross.mappings == ()  # greater's arguments cannot align: incomplete


def test_mappings_are_one_to_one_and_parallel_connected():
    b, t = (
        desc("b", ["hits", "a", "b"], ["hits", "b", "c"], ["near", "a", "c"]),
        desc("t", ["hits", "x", "y"], ["hits", "y", "z"], ["near", "x", "y"]),
    )
    for m in match(b, t).mappings:
        bases = [h.base for h in m.mhs if h.kind != "functor"]
        targets = [h.target for h in m.mhs if h.kind != "functor"]
        assert len(bases) == len(set(bases)) and len(targets) == len(set(targets))
        for h in m.expression_mhs:
            for arg_b, arg_t in zip(h.base.args, h.target.args):
                assert m.target_of(arg_b) == arg_t


def test_trickle_down_takes_consistent_parents_only():
    # Note's example: MH1 (above t c)/(above T C), MH2 (above t c)/(above T S), MH3 t/T.
    b, t = desc("b", ["above", "t", "c"]), desc("t", ["above", "T", "C"], ["above", "T", "S"])
    score = {(h.base, h.target): h.score for h in match(b, t).hypotheses}
    assert score[("t", "T")] == pytest.approx(16 * 0.005)
    loose = SMEParams(block_most_out_of_mapping_contributions=False)
    score = {(h.base, h.target): h.score for h in match(b, t, loose).hypotheses}
    assert score[("t", "T")] == pytest.approx(2 * 16 * 0.005)


def test_max_local_score_caps_every_hypothesis():
    facts = (["cause", ["hits", "a", "b"], ["near", "a", "b"]],)
    r = match(desc("b", *facts), desc("t", *facts), SMEParams(max_local_score=0.05))
    assert max(h.score for h in r.hypotheses) == pytest.approx(0.05)
    assert max(r.best.mh_scores) == pytest.approx(0.05)


def test_functor_trickle_down_scores_functor_correspondences():
    b, t = desc("b", ["hits", "a", "b"]), desc("t", ["hits", "x", "y"])
    plain = match(b, t).best
    flowing = match(b, t, SMEParams(functor_trickle_down=True)).best
    assert flowing.score == pytest.approx(plain.score + 16 * 0.005)


def test_candidate_inference_skolemises_unmapped_entities_once():
    b = desc("b", ["hits", "a", "b"], ["cause", ["hits", "a", "b"], ["hits", "c", "c"]])
    t = desc("t", ["hits", "x", "y"])
    (ci,) = match(b, t).best.candidate_inferences
    assert ci.expression == Expr(
        "cause", (Expr("hits", ("x", "y")), Expr("hits", (Skolem("c"), Skolem("c"))))
    )
    assert ci.skolems == (Skolem("c"),)
    # SME v4's ciscore: hits~hits (0.005 + 2 * 16 * 0.005) and the hits functor match (0.005);
    # outside, the new cause statement: 0.005 + 2 * 16 * 0.005.
    assert ci.support == pytest.approx(0.17, rel=1e-6)
    assert ci.extrapolation == pytest.approx(0.165 / (0.165 + 0.17), rel=1e-6)


def test_entity_supported_inferences_follow_the_liberal_switch():
    b = desc("b", ["hits", "a", "b"], ["red", "a"])
    t = desc("t", ["hits", "x", "y"])
    assert [str(c) for c in match(b, t).best.candidate_inferences] == ["(red x)"]
    strict = SMEParams(allow_entity_supported_inferences=False)
    assert match(b, t, strict).best.candidate_inferences == ()


def test_reverse_inferences_project_target_structure_onto_the_base():
    b = desc("b", ["hits", "a", "b"])
    t = desc("t", ["hits", "x", "y"], ["cause", ["hits", "x", "y"], ["near", "y", "x"]])
    best = match(b, t, SMEParams(compute_reverse_inferences=True)).best
    assert [str(c) for c in best.reverse_inferences] == ["(cause (hits a b) (near b a))"]
    assert all(c.reverse for c in best.reverse_inferences)


def test_later_mappings_absorb_kernels_of_earlier_ones_whatever_the_flag():
    # SME v4's greedy-cream always lets a later mapping absorb the consistent kernels of the
    # earlier ones; use-less-greedy-greedy-merge? is recorded but never read (the real SME v4
    # gives [3.225, 3.123] both ways).
    b, t = fixture_pair(PUBLISHED, "solar", "ruther")
    for flag in (True, False):
        r = match(b, t, SMEParams(use_less_greedy_greedy_merge=flag))
        assert [round(m.score, 4) for m in r.mappings] == [3.225, 3.123]


def test_greedy_max_and_cutoff_limit_the_mappings():
    b, t = fixture_pair(PUBLISHED, "solar", "ruther")
    assert match(b, t, SMEParams(greedy_max=1)).mapping_count == 1
    # The cutoff applies while merging, to network scores (3.219 vs 3.225 here), as in SME v4.
    assert match(b, t, SMEParams(greedy_cutoff=0.99)).mapping_count == 2
    assert match(b, t, SMEParams(greedy_cutoff=0.999)).mapping_count == 1


def test_excluded_and_required_correspondences_filter_kernels():
    b, t = fixture_pair(PUBLISHED, "solar", "ruther")
    excluded = match(b, t, filters=MatchFilters(excluded=(("sun", "nucleus"),)))
    assert all(("sun", "nucleus") not in entity_pairs(m) for m in excluded.mappings)
    required = match(b, t, filters=MatchFilters(required=(("sun", "electron"),)))
    assert required.mappings and all(
        ("sun", "electron") in entity_pairs(m) for m in required.mappings
    )
    with pytest.raises(MappingError, match="not an entity or expression of the base"):
        match(b, t, filters=MatchFilters(excluded=(("moon", "nucleus"),)))


def test_filters_reject_contradictions():
    with pytest.raises(MappingError, match="one-to-one"):
        MatchFilters(required=(("a", "x"), ("a", "y")))
    with pytest.raises(MappingError, match="both required and excluded"):
        MatchFilters(required=(("a", "x"),), excluded=(("a", "x"),))


def test_commutative_arguments_are_paired_consistently():
    # The set's pairing is settled by the ordinary matches: a~x from hits, so b~y.
    b = desc("b", ["and", "a", "b"], ["hits", "a", "c"])
    t = desc("t", ["and", "y", "x"], ["hits", "x", "z"])
    best = match(b, t).best
    assert entity_pairs(best) == {("a", "x"), ("b", "y"), ("c", "z")}
    assert best.score == pytest.approx(0.005 * 2 + 16 * 0.010 + 16 * 0.005 * 2)


def test_logical_connectives_are_seeded_like_sme_v4_and_ubiquitous_ones_are_not():
    b, t = fixture_pair(PUBLISHED, "ct5base", "ct5target")
    assert match(b, t).mh_count == 15  # SME v4's count needs the and~and seed
    preds = dict(
        b.predicates, **{"and": PredicateInfo("and", "logical", None, True, True, ubiquitous=True)}
    )
    b2 = Description(b.name, b.entities, b.facts, preds)
    t2 = Description(t.name, t.entities, t.facts, preds)
    assert not any(
        h.kind == "expression" and h.base.functor == "and" for h in match(b2, t2).hypotheses
    )


def test_runs_are_deterministic():
    b = desc("b", ["hits", "a", "b"], ["hits", "b", "a"], ["near", "a", "b"])
    t = desc("t", ["hits", "x", "y"], ["hits", "y", "x"], ["near", "y", "x"])
    first, second = match(b, t), match(b, t)
    assert [(m.score, m.correspondences) for m in first.mappings] == [
        (m.score, m.correspondences) for m in second.mappings
    ]


def test_no_shared_structure_gives_no_mapping():
    r = match(desc("b", ["hits", "a", "b"]), desc("t", ["near", "x", "y"]))
    assert r.mh_count == 0 and r.mappings == () and r.best is None


def test_docstring_example_runs():
    import doctest

    from analogist.mapping import engine

    assert doctest.testmod(engine).failed == 0


def test_overlap_only_merge_as_sme_v4():
    # The real SME v4 merges these two attribute kernels with or without
    # greedy-merge-overlap-only? ([0.17] both ways); the params gold set covers the flag.
    b, t = desc("b", ["red", "a"], ["round", "b"]), desc("t", ["red", "x"], ["round", "y"])
    assert [round(m.score, 4) for m in match(b, t).mappings] == [0.17]
    apart = match(b, t, SMEParams(greedy_merge_overlap_only=True))
    assert [round(m.score, 4) for m in apart.mappings] == [0.17]


def test_global_support_counts_the_whole_mappings_trickle_down():
    b = desc(
        "b",
        ["hits", "a", "b"],
        ["near", "a", "b"],
        ["cause", ["hits", "a", "b"], ["hits", "b", "a"]],
    )
    t = desc("t", ["hits", "x", "y"], ["near", "x", "y"])
    (local,) = match(b, t).best.candidate_inferences
    (wide,) = match(b, t, SMEParams(ci_support_scores_global=True)).best.candidate_inferences
    # SME v4 (ciscore.lisp; values checked against the real SME v4: 0.18 and 0.325): the
    # inference (cause (hits x y) (hits y x)) rests on hits~hits (0.005 + 2 * 16 * 0.005),
    # the hits functor match and the two entity matches (0.005 each).
    assert local.support == pytest.approx(0.18, rel=1e-6)
    assert local.extrapolation == pytest.approx(0.165 / 0.345, rel=1e-6)
    # Global: the scores of those correspondences' descendants (hits, its functor, a~x, b~y).
    assert wide.support == pytest.approx(0.005 + 2 * 16 * 0.010, rel=1e-6)


def test_disallowing_out_of_mapping_contributions_rescores_every_partial_mapping():
    b, t = desc("b", ["above", "t", "c"]), desc("t", ["above", "T", "C"], ["above", "T", "S"])
    strict = match(
        b,
        t,
        SMEParams(
            allow_out_of_mapping_score_contributions=False,
            block_most_out_of_mapping_contributions=False,
        ),
    )
    assert [round(m.score, 4) for m in strict.mappings] == [0.165, 0.165]
