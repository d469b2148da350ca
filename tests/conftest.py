"""Shared test setup: the --live flag, fixture paths, the spec's example signature, one
throwaway PostgreSQL cluster for the whole run."""

from __future__ import annotations

import copy
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Tests embed with the deterministic hashing embedder (fast, no model files); tests of the
# configured/auto embedder choice set ANALOGIST_EMBEDDER themselves.
os.environ["ANALOGIST_EMBEDDER"] = "hashing"

REPO = Path(__file__).resolve().parents[1]
# SME v4's published fixtures, copied into the tests (tests never read shared/).
SME_FIXTURES = REPO / "tests" / "mapping" / "sme_published"

SPEC_EXAMPLE = {
    "episode_id": "ep_2026_09_14_0213",
    "kind": "failure",
    "roles": {
        "SRC": "authoritative source",
        "DER": "derived representation",
        "CON": "consumer that makes a claim",
    },
    "relations": [
        ["derives_from", "DER", "SRC"],
        ["trusts_as_authoritative", "CON", "DER"],
        ["skips_check", "CON", "SRC"],
        ["diverges_from", "DER", "SRC"],
    ],
    "causal_chain": [
        ["diverges_from(DER,SRC)", "causes", "false_claim(CON)"],
        ["skips_check(CON,SRC)", "enables", "false_claim(CON)"],
    ],
    "violated_invariant": "claims about state are read from the authoritative source",
    "symptom": "confident assertion contradicted by later evidence",
    "fix_operator": "reconcile(CON, DER, SRC) before assert",
    "levels": {
        "L0": "Intel feed believed stale because cached summary was read",
        "L1": "Cache read in place of source caused wrong status",
        "L2": "Derived copy treated as authoritative; divergence propagated",
        "L3": "Proxy mistaken for referent",
    },
    "surface": {"domain": "monitoring", "entities": ["intel feed", "cache"]},
    "verified": True,
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--live", action="store_true", help="also run tests against a live model")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--live"):
        return
    skip = pytest.mark.skip(reason="live model test: run with --live")
    for item in items:
        if "live" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def spec_example() -> dict:
    """A fresh deep copy of the spec §4.1 example signature."""
    return copy.deepcopy(SPEC_EXAMPLE)


@pytest.fixture
def vocab():
    from analogist.signature import default_vocabulary

    return default_vocabulary()


@pytest.fixture
def sme_fixtures() -> Path:
    assert SME_FIXTURES.is_dir(), f"SME fixtures missing at {SME_FIXTURES}"
    return SME_FIXTURES


def pytest_report_header(config: pytest.Config) -> str:
    """Which PostgreSQL server binaries the PostgreSQL tests would use (or why they skip)."""
    from tests.store.pg_server import pg_bin, why_unavailable

    why, found = why_unavailable(), pg_bin()
    if why or found is None:
        return f"postgresql tests: skipped ({why})"
    return f"postgresql tests: server binaries from {found[1]} ({found[0]})"


@pytest.fixture(scope="session")
def pg_server() -> Iterator:
    """One throwaway PostgreSQL cluster for every test that needs one (each takes fresh
    databases from it with ``url()``); skips, with the reason, without the server binaries or
    psycopg. ``describe()`` says which server it is; ``pgvector`` is the vector extension's
    version, or None where the server lacks it."""
    from tests.store.pg_server import PgServer, why_unavailable

    why = why_unavailable()
    if why:
        pytest.skip(f"PostgreSQL backend not tested: {why}")
    server = PgServer()
    yield server
    server.stop()


@pytest.fixture
def pgvector_server(pg_server):
    """The session's cluster when it offers pgvector; skips with the server's description."""
    if pg_server.pgvector is None:
        pytest.skip(f"pgvector search not tested: {pg_server.describe()}")
    return pg_server
