"""Fidelity: the engine reproduces SME v4's seven published regression results.

Every ``*.expected.json`` in ``tests/mapping/sme_published`` is run with its own ``params`` and
compared the way ``sme/test.lisp`` compares (:mod:`tests.mapping.sme4_diff`): equal
match-hypothesis, kernel and mapping counts, and mapping N agreeing with SME's mapping N on
hypothesis count, score (within 0.1%) and, as sets, entity and root correspondences and
candidate inferences. The cases live in the repository, so nothing is skipped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from analogist.mapping import SMEParams, match, to_fixture_json
from analogist.signature.description import load_description, load_predicates
from tests.mapping.sme4_diff import result_diff

PUBLISHED = Path(__file__).resolve().parent / "sme_published"
CASES = sorted(PUBLISHED.glob("*.expected.json"))


def test_all_seven_published_cases_are_present() -> None:
    assert len(CASES) == 7


@pytest.mark.parametrize("expected_path", CASES, ids=[p.stem for p in CASES])
def test_reproduces_published_sme_results(expected_path: Path) -> None:
    expected = json.loads(expected_path.read_text())
    predicates = load_predicates(PUBLISHED / "predicates.json")
    base = load_description(PUBLISHED / f"{expected['base']}.json", predicates)
    target = load_description(PUBLISHED / f"{expected['target']}.json", predicates)
    got = to_fixture_json(match(base, target, SMEParams.from_fixture_dict(expected["params"])))
    assert result_diff(got, expected) == []
