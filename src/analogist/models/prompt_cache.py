"""The RAM prompt cache for llama.cpp, holding no more than the capacity it is given.

llama-cpp-python's ``LlamaRAMCache`` counts only each saved prompt's KV state against its
capacity, but every saved state also carries a copy of the model's logits buffer (``n_batch``
rows x the vocabulary, float32: 311 MB for Qwen2.5's 151,936 tokens at ``n_batch`` 512), so a
"1024 MB" cache held ~9.8 GB of anonymous memory in the reference run of 2026-12-02. Those
logits are never read: a restored state is decoded again from at least its last token before
anything is sampled (llama-cpp-python 0.3.36 sets ``_requires_eval`` in ``load_state`` and
``generate`` then replays one token). So this cache keeps one zero row in their place
(``load_state`` broadcasts it) and counts every byte it keeps against the capacity.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def state_bytes(state: Any) -> int:
    """Bytes a saved ``LlamaState`` keeps: KV state, logits rows and token ids."""
    return int(state.llama_state_size) + int(state.scores.nbytes) + int(state.input_ids.nbytes)


def trimmed(state: Any) -> Any:
    """The state with its logits copy replaced by one zero row of the same width and type."""
    scores = state.scores
    if scores.ndim == 2 and scores.shape[0] > 1:
        state.scores = np.zeros((1, scores.shape[1]), dtype=scores.dtype)
    return state


def ram_cache(capacity_bytes: int) -> Any:
    """A ``LlamaRAMCache`` whose size is :func:`state_bytes` of what it holds (trimmed)."""
    from llama_cpp import LlamaRAMCache

    class SizedRAMCache(LlamaRAMCache):  # llama_cpp is untyped (Any)
        @property
        def cache_size(self) -> int:
            return sum(state_bytes(s) for s in self.cache_state.values())

        def __setitem__(self, key: Sequence[int], value: Any) -> None:
            super().__setitem__(key, trimmed(value))

    return SizedRAMCache(capacity_bytes=capacity_bytes)
