"""Fixtures shared by the model-backend tests."""

from __future__ import annotations

import pytest

from .fake_openai import FakeOpenAI


@pytest.fixture
def server():
    """A real OpenAI-compatible HTTP server on 127.0.0.1 that answers as each test scripts it."""
    with FakeOpenAI() as s:
        yield s
