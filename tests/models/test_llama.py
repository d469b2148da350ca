"""The llama.cpp backend (``llama:/path.gguf``). The real call uses ANALOGIST_TEST_GGUF, else the
installed SmolLM2 weights (``make local-test``); the bundled-model tests are in test_local.py."""

import os

import pytest

from analogist.errors import ConfigError
from analogist.models import ModelSettings, open_llm
from analogist.models.llama import LlamaCppLLM


def test_a_path_that_is_not_gguf_is_refused(tmp_path):
    f = tmp_path / "model.gguf"
    f.write_bytes(b"NOPE")
    with pytest.raises(ConfigError, match="not a GGUF"):
        open_llm(f"llama:{f}", settings=ModelSettings())
    with pytest.raises(ConfigError, match="no file"):
        open_llm(f"llama:{tmp_path / 'absent.gguf'}", settings=ModelSettings())


def test_identity_names_the_file_not_the_path():
    a = LlamaCppLLM.identity("/models/a/x.gguf", ModelSettings())
    b = LlamaCppLLM.identity("/elsewhere/x.gguf", ModelSettings())
    assert a == b and a.model == "x.gguf" and a.params["top_k"] == 40


def test_ping_checks_the_file_without_loading_it(tmp_path):
    f = tmp_path / "m.gguf"
    f.write_bytes(b"GGUF" + b"\0" * 16)
    p = LlamaCppLLM.ping(str(f), ModelSettings())
    assert p.status in ("ok", "missing dependency")


def _gguf() -> str | None:
    from analogist.models.local import CATALOGUE, SMALLEST_MODEL

    if os.environ.get("ANALOGIST_TEST_GGUF"):
        return os.environ["ANALOGIST_TEST_GGUF"]
    entry = CATALOGUE[SMALLEST_MODEL]
    return str(entry.weights()) if entry.installed() else None


@pytest.mark.skipif(_gguf() is None, reason="LLAMA TEST SKIPPED: no GGUF; run `make local-test`")
def test_a_real_call_returns_json_of_the_schemas_shape():
    pytest.importorskip("llama_cpp")
    llm = open_llm(f"llama:{_gguf()}", settings=ModelSettings(n_ctx=1024))
    schema = {
        "type": "object",
        "required": ["colour"],
        "additionalProperties": False,
        "properties": {"colour": {"enum": ["red", "green", "blue"]}},
    }
    c = llm.complete(
        [{"role": "user", "content": "What colour is the sky?"}], schema=schema, max_tokens=20
    )
    assert c.parsed["colour"] in ("red", "green", "blue")
