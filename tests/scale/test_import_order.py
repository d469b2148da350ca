"""usearch (HNSW) and onnxruntime (the MiniLM embedder) in one process, in the order a
reopened memory loads them: its saved HNSW graph first, the embedder at the first query.
Importing onnxruntime after usearch segfaults; `retrieve/ann.py` loads them in the safe order."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest


@pytest.mark.skipif(
    not (importlib.util.find_spec("usearch") and importlib.util.find_spec("onnxruntime")),
    reason="needs usearch and onnxruntime",
)
def test_hnsw_then_embedder_runtime_in_one_process():
    code = "from analogist.retrieve import ann; assert ann.available() is None; import onnxruntime"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
