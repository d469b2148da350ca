"""The llama.cpp prompt cache keeps no more than its stated capacity (models/prompt_cache.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from analogist.models.prompt_cache import ram_cache, state_bytes, trimmed

from .local_runtime import require

real = require(("llama_cpp",), "llama-cpp-python", "LOCAL MODEL TESTS")


def _state(kv: int, rows: int = 512, vocab: int = 1000) -> SimpleNamespace:
    return SimpleNamespace(
        llama_state_size=kv,
        scores=np.ones((rows, vocab), dtype=np.single),
        input_ids=np.zeros(64, dtype=np.intc),
        n_tokens=10,
    )


def test_a_state_is_counted_with_its_logits_and_ids():
    s = _state(1000)
    assert state_bytes(s) == 1000 + 512 * 1000 * 4 + 64 * 4


def test_trimming_keeps_one_zero_row_of_the_same_width_and_type():
    s = trimmed(_state(1000))
    assert s.scores.shape == (1, 1000) and s.scores.dtype == np.single and not s.scores.any()
    full = np.ones((512, 1000), dtype=np.single)
    full[:10, :] = s.scores  # how load_state restores it: broadcast over the first n_tokens rows
    assert not full[:10].any() and full[10:].all()


@real
def test_the_cache_evicts_by_every_byte_it_holds():
    cache = ram_cache(1 << 20)  # 1 MiB
    for i in range(5):
        cache[(i, i + 1)] = _state(300_000)  # 2 MB of logits each before trimming
    held = list(cache.cache_state.values())
    assert 1 <= len(held) <= 3 and cache.cache_size <= 1 << 20
    assert all(s.scores.shape[0] == 1 for s in held)
    assert (4, 5) in cache.cache_state and (0, 1) not in cache.cache_state
