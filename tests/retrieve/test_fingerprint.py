"""The WL fingerprint is surface-free, order-free, versioned and stable (spec §7, S0)."""

from __future__ import annotations

import copy

from analogist.signature.fingerprint import (
    ROLE_FEATURE,
    WLFingerprint,
    fingerprint,
    near_features,
    signature_graph,
    weighted_jaccard,
)
from tests.retrieve import cases


def test_far_twin_with_other_roles_and_order_has_the_same_hash(sig, vocab):
    # ledger: other role names and descriptions, relations and links in another order
    assert (
        fingerprint(sig(cases.PROXY), vocab).wl_hash
        == fingerprint(sig(cases.LEDGER), vocab).wl_hash
    )


def test_role_names_and_descriptions_do_not_matter(sig, vocab):
    ep = cases.renamed_roles(cases.PROXY, {"SRC": "A", "DER": "B", "CON": "C"}, "renamed")
    ep["signature"]["roles"] = {"A": "x", "B": "y", "C": "z"}
    assert fingerprint(sig(ep), vocab).wl_hash == fingerprint(sig(cases.PROXY), vocab).wl_hash


def test_one_changed_predicate_changes_the_hash_but_stays_near(sig, vocab):
    ep = copy.deepcopy(cases.PROXY)
    ep["signature"]["relations"][2] = ["ignores", "CON", "SRC"]
    ep["signature"]["causal_chain"][1][0] = "ignores(CON,SRC)"
    a, b = fingerprint(sig(cases.PROXY), vocab), fingerprint(sig(ep), vocab)
    assert a.wl_hash != b.wl_hash
    near = weighted_jaccard(near_features(a.features), near_features(b.features))
    far = weighted_jaccard(
        near_features(a.features), near_features(fingerprint(sig(cases.RACE), vocab).features)
    )
    assert 0.15 <= near < 1.0 and far < 0.05


def test_direction_of_a_relation_matters(sig, vocab):
    ep = copy.deepcopy(cases.PROXY)
    ep["signature"]["relations"][0] = ["derives_from", "SRC", "DER"]
    assert fingerprint(sig(ep), vocab).wl_hash != fingerprint(sig(cases.PROXY), vocab).wl_hash


def test_commutative_argument_order_does_not_matter(sig, vocab):
    ep = copy.deepcopy(cases.RACE)
    ep["signature"]["relations"][0] = ["races_with", "W2", "W1"]
    assert fingerprint(sig(ep), vocab).wl_hash == fingerprint(sig(cases.RACE), vocab).wl_hash


def test_a_term_in_relations_and_chain_is_one_node(sig, vocab):
    labels, edges = signature_graph(sig(cases.PROXY))
    assert labels.count("role") == 3
    assert sorted(x for x in labels if x != "role") == [
        "p=derives_from",
        "p=diverges_from",
        "p=false_claim",
        "p=skips_check",
        "p=trusts_as_authoritative",
    ]
    assert sum(1 for _, _, lab in edges if lab.startswith("L=")) == 2


def test_features_count_every_round_and_version_names_the_parameters(sig, vocab):
    fp = WLFingerprint(iterations=2)(sig(cases.PROXY), vocab)
    assert fp.version == "wl1-h2"
    assert fp.features[ROLE_FEATURE] == 3
    assert {k.split(":")[0] for k in fp.features} == {"0", "1", "2"}
    assert sum(fp.features.values()) == 8 * 3  # 8 nodes, rounds 0..2
    assert WLFingerprint(include_fix=True).version == "wl1-h3-fix"


def test_fix_structure_is_optional(sig, vocab):
    ep = copy.deepcopy(cases.LEDGER)
    ep["signature"]["fix_operator"] = "reconcile(SHEET, CLERK, BANK) before close"
    plain, with_fix = WLFingerprint(), WLFingerprint(include_fix=True)
    assert plain(sig(ep), vocab).wl_hash == plain(sig(cases.PROXY), vocab).wl_hash
    assert with_fix(sig(ep), vocab).wl_hash != with_fix(sig(cases.PROXY), vocab).wl_hash
    assert with_fix(sig(cases.LEDGER), vocab).wl_hash == with_fix(sig(cases.PROXY), vocab).wl_hash


def test_hash_is_stable_across_runs(sig, vocab):
    # A changed value means the fingerprint changed: bump WL_SCHEME so stored hashes are redone.
    assert fingerprint(sig(cases.PROXY), vocab).wl_hash == GOLDEN_PROXY_HASH


def test_weighted_jaccard_by_hand():
    assert weighted_jaccard({"a": 2, "b": 1}, {"a": 1, "c": 1}) == 1 / 4
    assert weighted_jaccard({}, {}) == 0.0


GOLDEN_PROXY_HASH = "9181b774fd2a0a4e9e8008caea3565cc"


def test_features_json_is_json_dumps_sorted_whatever_the_keys(sig, vocab):
    """The stored features text, written directly, equals ``json.dumps(sort_keys=True)``; keys
    that would need escaping go through ``json.dumps`` itself."""
    import json

    from analogist.signature.fingerprint import features_json

    for case in (cases.PROXY, cases.LEDGER, cases.RACE):
        feats = fingerprint(sig(case), vocab).features
        assert features_json(feats) == json.dumps(dict(feats), sort_keys=True)
    for odd in ({"0:p=café": 1, "1:ab": 2}, {'0:p="q"': 1}, {"0:a\\b": 3}, {"0:\n": 1}, {}):
        assert features_json(odd) == json.dumps(odd, sort_keys=True), odd
