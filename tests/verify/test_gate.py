"""The causal-path gate reproduces spec §10.1's example and blocks what it must."""

import copy

from analogist.signature import parse_signature
from analogist.verify.assessment import build_assessment
from analogist.verify.checks import run_checks
from analogist.verify.gate import CausalGate
from analogist.verify.inference import candidate_inferences
from analogist.verify.predict import make_prediction
from tests.verify.test_checks import MAP, TARGET

GATE = CausalGate()


def decide(source, target, vocab, role_map=MAP, gate=GATE):
    s, t = parse_signature(source, vocab), parse_signature(target, vocab)
    c = run_checks(s, t, role_map, vocab)
    ds = gate.decide(s, t, c, candidate_inferences(s, c.alignment), vocab)
    return t, c, {d.inference.projected: d for d in ds}


def test_spec_example_reconcile_transfers_stale_claim_does_not(spec_example, vocab):
    t, c, ds = decide(spec_example, TARGET, vocab)
    assert ds["reconcile(REPORTER,CACHE,SENSOR) before assert"].transfer
    assert not ds["diverges_from(CACHE, SENSOR)"].transfer
    assert "blocker prevents(TTL, CACHE)" in ds["diverges_from(CACHE, SENSOR)"].reason
    p = make_prediction(t, list(ds.values()))
    assert p.fact == "diverges_from(CACHE, SENSOR)"
    rec = build_assessment("ep_2026_09_14_0213", c, list(ds.values()), p.statement, p.check)
    text = rec.render()
    assert "MAPPED    CON→REPORTER, DER→CACHE, SRC→SENSOR" in text
    assert "FAILS     diverges_from(DER, SRC): unknown in target" in text
    assert "BLOCKERS  target has prevents(TTL, CACHE)" in text


def test_flipped_sign_blocks_every_transfer(spec_example, vocab):
    target = copy.deepcopy(TARGET)
    target["causal_chain"] = [["skips_check(REPORTER,SENSOR)", "prevents", "false_claim(REPORTER)"]]
    _, _, ds = decide(spec_example, target, vocab)
    assert not any(d.transfer for d in ds.values())
    assert all("contradictory causal sign" in d.reason for d in ds.values())


def test_blocker_on_the_mapped_path_stops_the_action(spec_example, vocab):
    target = copy.deepcopy(TARGET)
    target["relations"].append(["blocks", "TTL", "REPORTER"])
    _, _c, ds = decide(spec_example, target, vocab)
    d = ds["reconcile(REPORTER,CACHE,SENSOR) before assert"]
    assert not d.transfer and "blocks(TTL, REPORTER)" in d.reason


def test_no_mapped_causal_link_means_no_action(spec_example, vocab):
    target = copy.deepcopy(TARGET)
    target["causal_chain"] = []
    _, _, ds = decide(spec_example, target, vocab)
    assert not ds["reconcile(REPORTER,CACHE,SENSOR) before assert"].transfer


def test_unmapped_role_becomes_a_skolem_and_is_withheld(spec_example, vocab):
    _, _, ds = decide(spec_example, TARGET, vocab, role_map={"SRC": "SENSOR", "CON": "REPORTER"})
    action = next(d for d in ds.values() if d.inference.kind == "action")
    assert action.inference.skolems == ("DER",)
    assert not action.transfer and "no target counterpart" in action.reason


def test_fact_with_mapped_cause_transfers(spec_example, vocab):
    source = copy.deepcopy(spec_example)
    source["relations"].append(["false_claim", "CON"])
    _, _, ds = decide(source, TARGET, vocab)
    d = ds["false_claim(REPORTER)"]
    assert d.transfer and "caused by a mapped link" in d.reason


def test_gate_can_be_lesioned_for_blockers(spec_example, vocab):
    target = copy.deepcopy(TARGET)
    target["relations"].append(["blocks", "TTL", "REPORTER"])
    _, _, ds = decide(spec_example, target, vocab, gate=CausalGate(block_on_blockers=False))
    assert ds["reconcile(REPORTER,CACHE,SENSOR) before assert"].transfer
