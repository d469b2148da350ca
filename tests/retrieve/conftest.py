"""Fixtures for retrieval tests: a memory over the hand-built cases of :mod:`cases`."""

from __future__ import annotations

import pytest

from analogist.episode import parse_episode
from analogist.memory import Memory
from analogist.signature import default_vocabulary
from tests.retrieve import cases


@pytest.fixture
def vocab():
    return default_vocabulary()


@pytest.fixture
def memory():
    m = Memory(":memory:")
    report = m.add(cases.lines(*cases.ALL))
    assert not report.rejected, report.rejected
    yield m
    m.store.close()


@pytest.fixture
def sig(vocab):
    """Parse a case dict into its Signature."""
    return lambda ep: parse_episode(ep, vocab).signature
