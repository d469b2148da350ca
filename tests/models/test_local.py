"""The bundled local models (``local`` / ``local:NAME``).

The first group needs neither llama-cpp-python nor weights: choosing a model, the messages that
name the install command, joining split weights and checking their sha256, threads and context
from the machine. The second group runs the smallest model (SmolLM2-135M, 98 MB) through
llama.cpp on the CPU: ``make test`` installs it (``make local-test``); without it these tests
skip with a reason in capitals, and with ``ANALOGIST_REQUIRE_LOCAL=1`` (set by ``make test``)
they fail instead, so CI cannot pass while silently not running them.
"""

import hashlib
import importlib.util
import os
import threading
from pathlib import Path

import pytest

from analogist.errors import ConfigError, ModelError
from analogist.models import ModelSettings, open_llm
from analogist.models.local import (
    CATALOGUE,
    DEFAULT_MODEL,
    SMALLEST_MODEL,
    LocalLLM,
    LocalModel,
    local_model,
)
from analogist.models.settings import auto_threads, available_cores, split_spec

from .local_runtime import require

MSG = [{"role": "user", "content": "hi"}]


def test_local_alone_means_the_default_model_and_unknown_names_list_the_choices():
    assert split_spec("local") == ("local", "")
    assert LocalLLM.identity("", ModelSettings()).model == DEFAULT_MODEL
    with pytest.raises(ConfigError, match="smollm2"):
        local_model("gpt-5")


def test_identity_pins_the_weights_and_needs_no_files():
    ident = LocalLLM.identity("smollm2", ModelSettings())
    assert ident.provider == "local" and ident.model == "smollm2"
    assert ident.params["weights_sha256"] == CATALOGUE["smollm2"].sha256[:16]
    assert open_llm("replay:local:smollm2", store=_store()).model == "smollm2"


def _store():
    from analogist.store import Store

    return Store(":memory:")


def test_missing_llama_cpp_names_the_install_command(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "llama_cpp" else real(n, *a)
    )
    with pytest.raises(ConfigError, match="make local"):
        open_llm("local:smollm2", settings=ModelSettings())
    assert LocalLLM.ping("smollm2", ModelSettings()).status == "missing dependency"


def test_missing_weights_name_the_install_command():
    entry = LocalModel(
        "ghost",
        "Ghost",
        ("ghost-part1==1",),
        (("ghost-part1", "g.bin"),),
        "ghost.gguf",
        "0" * 64,
        4,
    )
    with pytest.raises(ConfigError, match="python -m analogist.models.install --models ghost"):
        entry.weights()
    assert not entry.installed()


def _fake_dist(root, name: str, rel: str, data: bytes) -> None:
    """A minimal installed distribution ``name`` holding ``rel`` (found by importlib.metadata)."""
    info = root / f"{name.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_split_weights_are_joined_once_checked_and_never_left_half_written(tmp_path, monkeypatch):
    site = tmp_path / "site"
    a, b = b"GGUF" + b"a" * 1000, b"b" * 777
    _fake_dist(site, "w-part1", "w_part1/data/part01.bin", a)
    _fake_dist(site, "w-part2", "w_part2/data/part02.bin", b)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("ANALOGIST_CACHE_DIR", str(tmp_path / "cache"))
    parts = (("w-part1", "w_part1/data/part01.bin"), ("w-part2", "w_part2/data/part02.bin"))
    good = LocalModel(
        "w",
        "W",
        ("w-part1==1.0", "w-part2==1.0"),
        parts,
        "w.gguf",
        hashlib.sha256(a + b).hexdigest(),
        len(a + b),
    )
    path = good.weights()
    assert path == tmp_path / "cache" / "models" / "w.gguf" and path.read_bytes() == a + b
    mtime = path.stat().st_mtime_ns
    assert good.weights() == path and path.stat().st_mtime_ns == mtime  # stamp: not re-joined
    bad = LocalModel("v", "V", good.packages, parts, "v.gguf", "f" * 64, len(a + b))
    with pytest.raises(ConfigError, match="not the pinned"):
        bad.weights()
    leftovers = sorted(p.name for p in (tmp_path / "cache" / "models").iterdir())
    assert leftovers == [".v.gguf.lock", ".w.gguf.lock", "w.gguf"]


def test_a_changed_single_file_fails_its_sha256(tmp_path, monkeypatch):
    site = tmp_path / "site"
    _fake_dist(site, "one-file", "one_file/m.gguf", b"GGUF-original")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("ANALOGIST_CACHE_DIR", str(tmp_path / "cache"))
    entry = LocalModel(
        "one",
        "One",
        ("one-file==1.0",),
        (("one-file", "one_file/m.gguf"),),
        "m.gguf",
        hashlib.sha256(b"GGUF-original").hexdigest(),
        13,
    )
    assert entry.weights() == site / "one_file" / "m.gguf"  # used in place, not copied
    (site / "one_file" / "m.gguf").write_bytes(b"GGUF-tampered")
    with pytest.raises(ConfigError, match="reinstall"):
        entry.weights()


def test_threads_are_the_idle_cores_of_the_affinity_and_context_is_large_unless_overridden(
    monkeypatch,
):
    s = ModelSettings.from_env({})
    assert available_cores() == len(os.sched_getaffinity(0))
    monkeypatch.setattr(os, "getloadavg", lambda: (0.1, 0.0, 0.0))
    assert s.cpu_threads() == available_cores()
    monkeypatch.setattr(os, "getloadavg", lambda: (40.0, 0.0, 0.0))
    assert s.cpu_threads() == 1 and "load 40.0" in auto_threads()[1]
    assert s.n_ctx == 8192
    s = ModelSettings.from_env({"ANALOGIST_THREADS": "3", "ANALOGIST_CTX": "2048"})
    assert (s.cpu_threads(), s.n_ctx) == (3, 2048)
    with pytest.raises(ConfigError, match="at least 512"):
        ModelSettings.from_env({"ANALOGIST_CTX": "100"})


# --- the smallest model, for real ------------------------------------------------------------


real = require(("llama_cpp",), "llama-cpp-python", "LOCAL MODEL TESTS")

ENUM_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["cause", "roles"],
    "properties": {
        "cause": {"enum": ["stale_cache", "dns_failure", "lock_contention"]},
        "roles": {
            "type": "array",
            "minItems": 1,
            "maxItems": 3,
            "items": {"enum": ["writer", "reader", "cache"]},
        },
    },
}


@pytest.fixture(scope="module")
def smol():
    llm = open_llm(f"local:{SMALLEST_MODEL}", settings=ModelSettings(n_ctx=2048, prompt_cache_mb=0))
    yield llm


@real
def test_grammar_constrained_json_honours_enums_without_repair(smol):
    for i, text in enumerate(
        ["The reader saw old data from the cache.", "Two writers waited on one lock for minutes."]
    ):
        c = smol.complete(
            [{"role": "user", "content": f"Incident: {text} Answer in JSON."}],
            schema=ENUM_SCHEMA,
            max_tokens=60,
            seed=i,
        )
        assert not c.repaired and c.finish_reason == "stop"
        assert c.parsed["cause"] in ENUM_SCHEMA["properties"]["cause"]["enum"]
        assert set(c.parsed["roles"]) <= {"writer", "reader", "cache"}
        assert c.input_tokens > 10 and c.output_tokens > 3 and c.latency_ms > 0


# The JSON-schema features the encoder's and the answerer's schemas use (encode/steps.py,
# bench/execution/prompts.py): tuples (prefixItems, items false), anyOf, pattern, an enum holding null,
# a type union, additionalProperties as a schema, bounded arrays and strings.
FEATURES_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["source", "chain", "fix", "mapping", "note", "confidence"],
    "properties": {
        "source": {"enum": ["ep1", "ep2", None]},
        "chain": {
            "type": "array",
            "minItems": 1,
            "maxItems": 2,
            "items": {
                "anyOf": [
                    {
                        "type": "array",
                        "prefixItems": [{"enum": ["stale"]}, {"enum": ["cache", "reader"]}],
                        "items": False,
                        "minItems": 2,
                        "maxItems": 2,
                    },
                    {
                        "type": "array",
                        "prefixItems": [
                            {"enum": ["copies_from", "reads_from"]},
                            {"enum": ["cache", "reader"]},
                            {"enum": ["cache", "reader"]},
                        ],
                        "items": False,
                        "minItems": 3,
                        "maxItems": 3,
                    },
                ]
            },
        },
        "fix": {
            "anyOf": [
                {"type": "null"},
                {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["operator"],
                    "properties": {
                        "operator": {"type": "string", "pattern": "^[a-z][a-z_]{1,20}$"}
                    },
                },
            ]
        },
        "mapping": {"type": "object", "additionalProperties": {"enum": ["e1", "e2"]}},
        "note": {"type": ["string", "null"], "maxLength": 60},
        "confidence": {"enum": ["low", "medium", "high"]},
    },
}


@real
def test_the_grammar_honours_every_schema_feature_the_project_uses(smol):
    from analogist.models.validate import schema_errors

    c = smol.complete(
        [
            {
                "role": "user",
                "content": "The cache served stale data to the reader. Fill in the JSON.",
            }
        ],
        schema=FEATURES_SCHEMA,
        max_tokens=200,
        seed=0,
    )
    assert c.finish_reason == "stop" and not c.repaired
    assert schema_errors(c.parsed, FEATURES_SCHEMA) == []


@real
def test_it_reports_the_threads_and_context_it_used(smol):
    smol.complete(MSG, max_tokens=4)
    rt = smol.runtime
    assert 1 <= rt["threads"] <= available_cores() and rt["n_ctx"] == 2048
    assert "load" in rt["threads_from"] or rt["threads_from"] == "ANALOGIST_THREADS"
    assert rt["file"].endswith(CATALOGUE[SMALLEST_MODEL].filename)


@real
def test_a_shared_prefix_is_served_from_the_kv_cache(smol):
    prefix = "You classify incidents. " + " ".join(f"Rule {i}: be brief." for i in range(60))
    first = smol.complete(
        [{"role": "system", "content": prefix}, {"role": "user", "content": "Incident A."}],
        max_tokens=4,
        seed=1,
    )
    second = smol.complete(
        [
            {"role": "system", "content": prefix},
            {"role": "user", "content": "Incident B, other words."},
        ],
        max_tokens=4,
        seed=1,
    )
    assert first.input_tokens > 300
    assert second.timings["prompt_eval_tokens"] < 0.2 * second.input_tokens


@real
def test_a_prompt_cache_serves_a_prefix_seen_before_the_last_prompt():
    llm = open_llm(
        f"local:{SMALLEST_MODEL}", settings=ModelSettings(n_ctx=1024, prompt_cache_mb=256)
    )
    a = "You sort incidents. " + " ".join(f"Rule {i}: be brief." for i in range(25))
    b = "You name roles. " + " ".join(f"Fact {i}: roles map one to one." for i in range(25))
    ask = [{"role": "user", "content": "Next."}]
    first = llm.complete([{"role": "system", "content": a}, *ask], max_tokens=2)
    llm.complete([{"role": "system", "content": b}, *ask], max_tokens=2)
    again = llm.complete(
        [{"role": "system", "content": a}, {"role": "user", "content": "Next one."}], max_tokens=2
    )
    assert llm.runtime["prompt_cache_mb"] == 256
    cache = llm.inner._llama.cache
    assert cache.cache_size <= 256 << 20 and cache.cache_state
    assert all(s.scores.shape[0] == 1 for s in cache.cache_state.values())  # logits not kept
    assert first.timings["prompt_eval_tokens"] > 100
    assert again.timings["prompt_eval_tokens"] < 0.2 * again.input_tokens


@real
def test_concurrent_callers_are_serialised_and_told_so(smol, capsys):
    smol.inner._warned_parallel = False
    errors: list[Exception] = []

    def call(i: int) -> None:
        try:
            smol.complete([{"role": "user", "content": f"Say {i}."}], max_tokens=8, seed=i)
        except Exception as e:  # noqa: BLE001 - collected for the assertion
            errors.append(e)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and smol.max_parallel == 1
    assert "calls run one at a time" in capsys.readouterr().err


@real
def test_a_prompt_longer_than_the_context_fails_naming_the_setting(smol):
    long = " ".join(["word"] * 3000)
    with pytest.raises(ModelError, match="ANALOGIST_CTX"):
        smol.complete([{"role": "user", "content": long}], max_tokens=4)


@real
def test_the_install_module_reports_an_installed_runtime_without_rebuilding():
    from analogist.models.install import LLAMA_CPP_VERSION, ensure_llama_cpp, installed_version

    if installed_version("llama-cpp-python") != LLAMA_CPP_VERSION:
        pytest.skip(f"llama-cpp-python is not the pinned {LLAMA_CPP_VERSION}")
    assert "already installed" in ensure_llama_cpp()


def test_install_refuses_unknown_models(capsys):
    from analogist.models.install import main

    assert main(["--models", "nope"]) == 2
    assert "choose from" in capsys.readouterr().err


def test_the_runtime_is_built_once_with_the_portable_flags_then_installed_from_the_cache(
    tmp_path, monkeypatch
):
    """The build itself takes minutes, so pip is replaced by a recorder that drops a wheel."""
    from analogist.models import install

    monkeypatch.setenv("ANALOGIST_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(install, "installed_version", lambda dist: None)
    calls: list[tuple[tuple[str, ...], dict | None]] = []

    def pip(*args: str, env: dict | None = None) -> None:
        calls.append((args, env))
        if args[0] == "wheel":
            out = args[args.index("-w") + 1]
            (Path(out) / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl").write_bytes(b"PK")

    monkeypatch.setattr(install, "_pip", pip)
    assert "a new" in install.ensure_llama_cpp()
    (build, env), (inst, _) = calls
    assert build[-1] == f"llama-cpp-python=={install.LLAMA_CPP_VERSION}"
    flags = env["CMAKE_ARGS"]
    assert "-DGGML_NATIVE=OFF" in flags and "-DGGML_AMX_INT8=OFF" in flags
    assert "-DGGML_AVX2=ON" in flags and env["CMAKE_BUILD_PARALLEL_LEVEL"] == str(available_cores())
    wheel = install.wheel_dir() / "llama_cpp_python-0.3.36-py3-none-linux_x86_64.whl"
    assert wheel.is_file() and inst == ("install", f"{wheel}[server]")
    assert not list((install.wheel_dir() / "tmp").iterdir())  # nothing half-built left behind
    calls.clear()
    assert "the cached" in install.ensure_llama_cpp()
    assert [c[0][0] for c in calls] == ["install"]  # no second build
