"""Against a live model (run with ``pytest --live``; needs ANALOGIST_MODEL and its settings)."""

import os

import pytest

from analogist.encode import ModelEncoder
from analogist.episode import Episode
from analogist.models import open_llm, ping_backends
from analogist.store import Store

pytestmark = pytest.mark.live


@pytest.fixture
def llm():
    if not os.environ.get("ANALOGIST_MODEL"):
        pytest.skip("set ANALOGIST_MODEL (and its server/key) for live tests")
    return open_llm(store=Store(":memory:"), cache="off")


def test_the_configured_model_answers(llm):
    spec = os.environ["ANALOGIST_MODEL"]
    (ping,) = [p for p in ping_backends(spec=spec) if p.spec.startswith(spec.split(":")[0])]
    assert ping.ok, ping.detail


def test_the_model_writes_a_valid_signature(llm):
    ep = Episode(
        "live_1",
        "failure",
        "The dashboard showed the copied ledger total, which had "
        "drifted from the bank account, and the finance team signed off on it.",
    )
    r = ModelEncoder(llm).encode(ep)
    assert r.ok, r.reason
    assert llm.stats.calls >= 1
