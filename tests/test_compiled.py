"""The compiled core (mapper and ingest kernels): it runs only when built from the sources beside
it, and says which runs."""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analogist import compiled
from analogist.mapping import engine, match, to_fixture_json
from analogist.signature import fingerprint
from analogist.signature.description import Description, Entity, Expr, PredicateInfo

SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the compiled sources, in their folders, without any build."""
    monkeypatch.delenv(compiled.PURE_ENV, raising=False)
    for p in compiled.compiled_sources():
        target = tmp_path / p.relative_to(compiled.HERE)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(p, target)
    return tmp_path


def _fake_build(root: Path) -> None:
    sources = compiled.compiled_sources(root)
    for p in sources:
        p.with_name(f"{p.stem}{SUFFIX}").write_bytes(b"")
    compiled.write_manifest(sources, root)


def test_the_core_is_the_mapper_and_the_ingest_kernels() -> None:
    names = [compiled.module_name(p) for p in compiled.compiled_sources()]
    assert "mapping.engine" in names and "mapping.__init__" not in names
    assert {"signature.fingerprint", "signature.model", "retrieve.postings"} <= set(names)
    assert all((compiled.HERE / m).is_file() for m in compiled.INGEST)


def test_unbuilt_sources_run_as_python(package: Path) -> None:
    found = compiled.check(package)
    assert not found.compiled and "not built" in found.reason
    assert "PURE PYTHON" in found.describe()


def test_a_build_matching_its_sources_is_used(package: Path) -> None:
    _fake_build(package)
    assert compiled.check(package) == compiled.CoreStatus(True)


@pytest.mark.parametrize(
    "source", ["mapping/merge.py", "retrieve/postings.py"], ids=["mapper", "ingest kernel"]
)
def test_a_source_edited_after_the_build_is_noticed(package: Path, source: str) -> None:
    _fake_build(package)
    with (package / source).open("a") as f:
        f.write("# edited\n")
    found = compiled.check(package)
    name = source.removesuffix(".py").replace("/", ".")
    assert not found.compiled and f"{name} changed" in found.reason
    assert "make core" in found.reason


def test_a_partial_build_is_not_used(package: Path) -> None:
    _fake_build(package)
    (package / "mapping" / f"scoring{SUFFIX}").unlink()
    found = compiled.check(package)
    assert not found.compiled and "mapping.scoring" in found.reason


def test_a_missing_manifest_is_not_trusted(package: Path) -> None:
    _fake_build(package)
    (package / compiled.MANIFEST).unlink()
    assert not compiled.check(package).compiled


def test_pure_python_on_request(package: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _fake_build(package)
    monkeypatch.setenv(compiled.PURE_ENV, "1")
    assert compiled.check(package).reason == f"{compiled.PURE_ENV} is set"


def test_the_status_shown_is_the_code_that_runs() -> None:
    runs_compiled = not engine.__file__.endswith(".py")
    assert fingerprint.__file__.endswith(".py") != runs_compiled
    assert compiled.status().compiled == runs_compiled
    if os.environ.get("ANALOGIST_REQUIRE_COMPILED"):
        assert runs_compiled, compiled.status().describe()


def _pair() -> tuple[Description, Description]:
    preds = {
        "r": PredicateInfo("r", "relation", 2),
        "cause": PredicateInfo("cause", "relation", 2),
        "and": PredicateInfo("and", "logical", None, n_ary=True, commutative=True),
    }

    def desc(name: str, a: str, b: str, c: str) -> Description:
        f1, f2 = Expr("r", (a, b)), Expr("r", (b, c))
        return Description(
            name,
            (Entity(a), Entity(b), Entity(c)),
            (Expr("cause", (f1, f2)), Expr("and", (f1, f2))),
            preds,
        )

    return desc("b", "x", "y", "z"), desc("t", "p", "q", "s")


def _on_the_source(imports: str, value: str) -> list:
    """``[compiled?, value]`` computed in a fresh process that runs the sources
    (``ANALOGIST_PURE_PYTHON=1``), with this folder importable as ``test_compiled``."""
    code = (
        f"import json, sys; sys.path.insert(0, sys.argv[1]); {imports}; "
        "from analogist import compiled; "
        f"print(json.dumps([compiled.status().compiled, {value}]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)],
        env={**os.environ, compiled.PURE_ENV: "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def test_the_source_gives_the_same_result_as_the_running_core() -> None:
    is_compiled, path, result = _on_the_source(
        "from test_compiled import _pair; "
        "from analogist.mapping import engine, match, to_fixture_json",
        "engine.__file__, to_fixture_json(match(*_pair()), detailed=True)",
    )
    assert not is_compiled and path.endswith("engine.py")
    assert result == json.loads(json.dumps(to_fixture_json(match(*_pair()), detailed=True)))


def _derived() -> list:
    """What the ingest kernels make of the example memory: each signature parsed and written
    back, its WL fingerprint row, MAC vector, structure key, a posting-list cosine, and the
    hashing embedder's token codes of every text."""
    from importlib import resources

    from analogist.episode import parse_episode
    from analogist.models.hashing_codes import token_codes
    from analogist.retrieve.mac import MacIndex, mac_features
    from analogist.retrieve.structure_memo import structure_key
    from analogist.signature import default_vocabulary
    from analogist.signature.fingerprint import WLFingerprint, commutative_terms

    vocab, out, index = default_vocabulary(), [], MacIndex()
    comm = commutative_terms(vocab)
    text = resources.files("analogist.data").joinpath("example_memory.jsonl").read_text("utf-8")
    for line in text.splitlines():
        sig = parse_episode(json.loads(line), vocab).signature
        if sig is None:
            continue
        mac = mac_features(sig, comm)
        index.add(sig.episode_id, mac)
        wl = WLFingerprint()(sig, vocab).as_row()
        out.append([sig.to_json(), list(wl), sorted(mac.items()), repr(structure_key(sig))])
    out.append([round(float(x), 6) for x in index.cosine(mac)])
    texts = [json.loads(line).get("text", "") for line in text.splitlines()]
    out.append(list(token_codes(texts, 384, True, {})) + list(token_codes(texts, 64, False, {})))
    return out


def test_the_source_derives_the_same_as_the_running_core() -> None:
    is_compiled, path, result = _on_the_source(
        "from test_compiled import _derived; from analogist.signature import fingerprint",
        "fingerprint.__file__, _derived()",
    )
    assert not is_compiled and path.endswith("fingerprint.py")
    assert len(result) > 10
    assert result == json.loads(json.dumps(_derived()))
