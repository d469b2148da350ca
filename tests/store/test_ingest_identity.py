"""The ingest path derives and stores exactly what it did before it was sped up: parsed
signatures, fingerprints, MAC vectors, embeddings and stored rows (hence answers) equal digests
recorded by the earlier code (``tests/store/ingest_identity_cases.py``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.store.ingest_identity_cases import (
    FIXTURE,
    case_lines,
    derived_digests,
    stored_digests,
)


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(FIXTURE.read_text())


@pytest.fixture(scope="module")
def lines() -> list[str]:
    return case_lines()


def test_the_cases_cover_what_the_fast_paths_must_keep(lines: list[str]) -> None:
    text = "\n".join(lines)
    for needle in ("copied_from", "races_with", "shares_resource", ", ", "fix_operator", "Q"):
        assert needle in text
    assert re.search(r"[a-z]\((?:Q|R)\d+, (?:Q|R)\d+\)", text)  # a spaced spelling
    assert re.search(r"[a-z]\([a-z_]+\(", text)  # a nested term
    assert len(set(lines)) == len(lines) > 200


def test_every_derived_value_equals_the_recorded_one(recorded: dict, lines: list[str]) -> None:
    got, want = derived_digests(lines), recorded["derived"]
    assert set(got) == set(want)
    diff = {
        eid: sorted(k for k in want[eid] if got[eid][k] != want[eid][k])
        for eid in want
        if got[eid] != want[eid]
    }
    assert not diff, f"{len(diff)} episodes differ, e.g. {list(diff.items())[:3]}"


def test_a_bulk_add_stores_the_recorded_rows(
    recorded: dict, lines: list[str], tmp_path: Path
) -> None:
    got, want = stored_digests(lines, tmp_path), recorded["stored"]
    assert got == want
