"""``analogist search``: id or text target, channel choice, exclusions, JSON output."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from analogist.cli.search_cmd import search
from analogist.memory import Memory
from tests.retrieve import cases


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "mem.db"
    with Memory(path) as m:
        m.add(cases.lines(*cases.ALL))
    return str(path)


@click.group()
@click.option("--db")
@click.pass_context
def main(ctx, db):
    ctx.ensure_object(dict)["db"] = db


main.add_command(search)


def invoke(*args):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_id_target_prints_provenance_lines(db):
    out = invoke("--db", db, "search", "proxy")
    assert (
        "candidate source=ledger found_by=[S0,S1,S2.L2,S2.L3] semantic_rank=- structural_rank=1"
        in out
    )
    assert "excluded: proxy" in out
    assert "skipped S3:" in out


def test_json_output_has_the_documented_shape(db):
    data = json.loads(invoke("--db", db, "search", "proxy", "--json", "-k", "3"))
    assert data["target"]["episode_id"] == "proxy"
    first = data["candidates"][0]
    assert set(first) == {
        "episode_id",
        "found_by",
        "ranks",
        "scores",
        "semantic_rank",
        "structural_rank",
    }
    assert first["episode_id"] == "ledger" and first["ranks"]["S0"] == 1
    assert "S3" in data["skipped"] and data["excluded"] == ["proxy"]


def test_text_target_channels_and_exclude(db):
    data = json.loads(
        invoke(
            "--db",
            db,
            "search",
            "intel feed cached summary",
            "--json",
            "--channels",
            "M",
            "--exclude",
            "feed_lookalike",
        )
    )
    ids = [c["episode_id"] for c in data["candidates"]]
    assert ids and "feed_lookalike" not in ids
    assert all(set(c["found_by"]) <= {"M.emb", "M.bm25"} for c in data["candidates"])


def test_db_option_on_the_command_itself(db):
    result = CliRunner().invoke(search, ["proxy", "--db", db, "--channels", "S0"])
    assert result.exit_code == 0 and "source=ledger" in result.output


def test_unknown_channel_is_one_clear_error(db):
    result = CliRunner().invoke(main, ["--db", db, "search", "proxy", "--channels", "S9"])
    assert result.exit_code == 1 and "unknown channel 'S9'" in result.output
