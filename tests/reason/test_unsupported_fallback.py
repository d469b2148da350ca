"""The prediction-check fallback: a mapping the engine critic rejects only because its fix's
causal support is not mapped link by link (what encoder noise does most often) is tried by the
prediction check and kept only when the check passes."""

import copy
import json

import pytest

from analogist.memory import Memory
from analogist.reason.analogizer import Analogizer, AnalogizerConfig
from analogist.signature import parse_signature
from analogist.verify.predict import CheckResult
from tests.reason.test_analogizer import FINANCE, NOISE

# the source's encoder dropped one link of the chain: the target's intact link now looks like a
# link "the source lacks" on the fix's path, so exact support fails
DROPPED = copy.deepcopy(FINANCE)
DROPPED["causal_chain"] = [["diverges_from(COPY,ACCT)", "causes", "false_claim(CLERK)"]]


@pytest.fixture
def noisy_memory():
    m = Memory(":memory:")
    assert not m.add([json.dumps(DROPPED), json.dumps(NOISE)]).rejected
    return m


def _check(passed):
    def hook(prediction, decisions):
        assert prediction.action is not None  # the pending action is what gets tested
        outcome = "resolved" if passed else "unchanged"
        return CheckResult(passed, f"sandbox: {outcome}", outcome, -1.0 if passed else 0.0)

    return hook


def _pending(run):
    return [a for a in run.attempts if "pending" in a]


def test_unsupported_mapping_kept_when_the_check_passes(noisy_memory, spec_example, vocab):
    run = Analogizer(noisy_memory, check=_check(True)).run(parse_signature(spec_example, vocab))
    assert run.source == "ep_fin"
    assert run.verification_result == "passed"
    assert run.transferred == ("reconcile(CON,DER,SRC) before reporting",)
    action = next(t for t in run.record.transfer if t.kind == "action")
    assert action.reason.startswith("pending the prediction check; causal support not mapped")
    assert not run.critic.accepted  # the critic's rejection stays on record
    assert _pending(run)[0]["pending"] == "ep_fin"


@pytest.mark.parametrize("passed", [False, None])
def test_unsupported_mapping_dropped_unless_the_check_passes(
    noisy_memory, spec_example, vocab, passed
):
    hook = _check(False) if passed is False else None  # None: no check hook, never "passed"
    run = Analogizer(noisy_memory, check=hook).run(parse_signature(spec_example, vocab))
    assert run.source is None and run.transferred == ()
    abandoned = [a for a in run.attempts if "abandoned" in a]
    assert abandoned and abandoned[0]["pending"] == "ep_fin"
    assert ("failed" if passed is False else "unchecked") in abandoned[0]["abandoned"]


def test_fallback_off_keeps_the_veto(noisy_memory, spec_example, vocab):
    config = AnalogizerConfig(test_unsupported=False)
    run = Analogizer(noisy_memory, config, check=_check(True)).run(
        parse_signature(spec_example, vocab)
    )
    assert run.source is None and not _pending(run)


def test_supported_mapping_is_chosen_without_the_fallback(spec_example, vocab):
    m = Memory(":memory:")
    assert not m.add([json.dumps(FINANCE), json.dumps(DROPPED | {"episode_id": "ep_dr"})]).rejected
    run = Analogizer(m, check=_check(True)).run(parse_signature(spec_example, vocab))
    assert run.source == "ep_fin" and run.critic.accepted and not _pending(run)
