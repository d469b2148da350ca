"""No silent behaviour (issue 14 item 5): a setting that is given is used or refused, and what
a command really did is said."""

from __future__ import annotations

import json
import warnings

import pytest
from click.testing import CliRunner

from analogist.bench import generate_bench
from analogist.bench.execution.runner import RunConfig, arm_embedders, run_bench
from analogist.cli.main import cli
from analogist.errors import ConfigError
from analogist.memory import Memory
from analogist.retrieve import embedder_choice
from analogist.retrieve.embedder_choice import EmbedderFallbackWarning, choose_embedder
from analogist.signature import default_vocabulary
from analogist.signature.vocabulary import Vocabulary
from analogist.store import Store


@pytest.fixture
def fresh_choice(monkeypatch):
    """Forget embedders chosen earlier in this process."""
    monkeypatch.setattr(embedder_choice, "_CHOICES", {})
    return monkeypatch


def minilm_loads() -> bool:
    from analogist.models.embedders import get_embedder

    try:
        get_embedder("minilm")
    except Exception:  # noqa: BLE001 - any reason it cannot load here
        return False
    return True


def test_store_refuses_a_vocabulary_it_would_ignore(tmp_path):
    path = tmp_path / "v.db"
    Store(path).close()
    same = Store(path, vocabulary=default_vocabulary())
    same.close()
    smaller = Vocabulary(default_vocabulary().terms[:-1], default_vocabulary().version)
    with pytest.raises(ConfigError, match="already holds its own vocabulary"):
        Store(path, vocabulary=smaller)


@pytest.mark.skipif(not minilm_loads(), reason="MiniLM is not installed here")
def test_analogist_embedder_minilm_is_honoured_by_memory(fresh_choice):
    fresh_choice.setenv("ANALOGIST_EMBEDDER", "minilm")
    m = Memory(":memory:")
    assert m.embedder.name.startswith("all-MiniLM")
    m.add(['{"id": "e1", "kind": "observation", "text": "the cache served a stale price"}'])
    stored = m.store.conn.execute("SELECT DISTINCT embedder FROM sig_vectors").fetchall()
    assert [r[0] for r in stored] == [m.embedder.name]


@pytest.mark.skipif(not minilm_loads(), reason="MiniLM is not installed here")
def test_auto_uses_minilm_where_installed(fresh_choice):
    fresh_choice.delenv("ANALOGIST_EMBEDDER", raising=False)
    fresh_choice.setenv("XDG_CONFIG_HOME", "/nonexistent")
    choice = choose_embedder()
    assert choice.source == "auto" and choice.embedder.name.startswith("all-MiniLM")
    assert choice.note is None


def test_auto_without_minilm_falls_back_loudly(fresh_choice, tmp_path):
    from analogist.models import embedders

    real = embedders.get_embedder

    def no_minilm(spec=None, settings=None):
        if spec == "minilm":
            raise ConfigError("the MiniLM embedder needs onnxruntime")
        return real(spec, settings)

    fresh_choice.setattr(embedders, "get_embedder", no_minilm)
    fresh_choice.delenv("ANALOGIST_EMBEDDER", raising=False)
    fresh_choice.setenv("XDG_CONFIG_HOME", str(tmp_path))
    with pytest.warns(EmbedderFallbackWarning, match="hashing embedder"):
        assert Memory(":memory:").embedder.name.startswith("hashing")
    fresh_choice.setattr(embedder_choice, "_CHOICES", {})
    f = tmp_path / "e.jsonl"
    f.write_text('{"id": "e1", "kind": "observation", "text": "x"}\n')
    out = CliRunner().invoke(cli, ["--db", str(tmp_path / "m.db"), "add", str(f)])
    assert out.exit_code == 0 and "note: no embedder is configured" in out.stderr


def test_embedder_option_is_used_and_shown(fresh_choice, tmp_path):
    f = tmp_path / "e.jsonl"
    f.write_text('{"id": "e1", "kind": "observation", "text": "the cache was stale"}\n')
    db = str(tmp_path / "m.db")
    assert (
        CliRunner().invoke(cli, ["--db", db, "--embedder", "hashing:64", "add", str(f)]).exit_code
        == 0
    )
    with Store(db) as s:
        assert (
            s.conn.execute("SELECT DISTINCT embedder FROM sig_vectors").fetchall()[0][0]
            == "hashing-64-bi"
        )
    shown = CliRunner().invoke(
        cli, ["--embedder", "hashing:64", "models", "--json", "--timeout", "0.2"]
    )
    assert json.loads(shown.stdout)["embedder"]["name"] == "hashing-64-bi"
    bad = CliRunner().invoke(cli, ["--db", db, "--embedder", "word2vec", "add", str(f)])
    assert bad.exit_code == 1 and "embedder 'word2vec'" in bad.stderr
    assert bad.stderr.count("\n") == 1


def test_bench_run_records_the_embedder_of_every_arm(fresh_choice):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store = Store(":memory:")
        run_id = run_bench(
            store,
            generate_bench(0, "dev", "small"),
            RunConfig(arms=("B", "E", "G"), answerers=("engine",), contamination=False),
        )
    emb = store.get_bench_run(run_id)["config"]["embedders"]
    assert emb == {"B": "hashing-384-bi", "E": "hashing-384-bi", "G": "hashing-384-bi"}
    assert arm_embedders([("A0", "model"), ("B", "model")]) == {"A0": "none", "B": "hashing-384-bi"}


def test_search_for_an_unknown_id_says_it_searched_text(tmp_path):
    db = str(tmp_path / "m.db")
    CliRunner().invoke(cli, ["--db", db, "demo"])
    out = CliRunner().invoke(cli, ["--db", db, "search", "nope", "--json"])
    assert out.exit_code == 0
    assert "'nope' is not a stored episode id; searched it as text" in out.stderr
    assert json.loads(out.stdout)["target"]["kind"] == "text"
    known = CliRunner().invoke(cli, ["--db", db, "search", "ep_fin_ledger_copy", "--json"])
    assert known.stderr == "" and json.loads(known.stdout)["target"]["kind"] == "episode"


def test_demo_restores_a_deleted_example_episode(tmp_path):
    db = str(tmp_path / "m.db")
    first = CliRunner().invoke(cli, ["--db", db, "demo", "--json"])
    assert CliRunner().invoke(cli, ["--db", db, "delete", "ep_fin_ledger_copy"]).exit_code == 0
    again = CliRunner().invoke(cli, ["--db", db, "demo", "--json"])
    assert again.exit_code == 0, again.output
    assert "restored 1 example episode(s)" in again.stderr
    assert json.loads(again.stdout)["episodes"] == json.loads(first.stdout)["episodes"]


def test_help_shows_the_configured_database(tmp_path, monkeypatch):
    conf = tmp_path / "conf" / "analogist"
    conf.mkdir(parents=True)
    (conf / "config.json").write_text(json.dumps({"db": "/srv/agents/shared.db"}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    monkeypatch.delenv("ANALOGIST_DB", raising=False)
    out = CliRunner().invoke(cli, ["--help"], terminal_width=200)
    assert "now /srv/agents/shared.db" in " ".join(out.stdout.split())


def test_an_embedder_put_in_force_is_used_then_restored(fresh_choice):
    from analogist.retrieve.embedder_choice import using_embedder

    fresh_choice.setenv("ANALOGIST_EMBEDDER", "hashing")
    with using_embedder("hashing:64", source="replay file") as choice:
        assert choice.embedder.name == "hashing-64-bi" and choice.source == "replay file"
        assert Memory(":memory:").embedder.name == "hashing-64-bi"
        assert choose_embedder("hashing:32").embedder.name == "hashing-32-bi"  # a flag wins
    assert Memory(":memory:").embedder.name == "hashing-384-bi"
    with pytest.raises(ConfigError, match="unknown"), using_embedder("nonsense"):
        pass
    assert choose_embedder().source == "ANALOGIST_EMBEDDER"


def test_the_cli_embedder_flag_is_in_force_for_the_whole_command(fresh_choice, tmp_path):
    # `bench run` builds its item memories without a flag: the root --embedder must reach them
    import json

    from click.testing import CliRunner

    from analogist.cli.main import cli

    fresh_choice.setenv("ANALOGIST_EMBEDDER", "hashing")
    args = ["--embedder", "hashing:64", "--db", str(tmp_path / "e.db"), "bench", "run"]
    args += ["--size", "small", "--arms", "B", "--answerers", "engine", "--n-boot", "20"]
    result = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    config = json.loads((tmp_path / "out" / "results.json").read_text())["config"]
    assert config["embedders"] == {"B": "hashing-64-bi"}
