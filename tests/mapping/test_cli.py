"""The ``map`` command, run through a throwaway click group with CliRunner."""

from __future__ import annotations

import json

import click
import pytest
from click.testing import CliRunner

from analogist.cli.map_cmd import map_cmd
from tests.mapping.helpers import PUBLISHED, desc


@pytest.fixture
def group() -> click.Group:
    g = click.Group("analogist")
    g.add_command(map_cmd)
    return g


@pytest.fixture
def files(tmp_path):
    base = tmp_path / "base.json"
    target = tmp_path / "target.json"
    base.write_text(json.dumps(desc("base", ["hits", "a", "b"], ["red", "a"]).to_json()))
    target.write_text(json.dumps(desc("target", ["hits", "x", "y"]).to_json()))
    return str(base), str(target)


def test_prints_the_mapping_table(group, files):
    result = CliRunner().invoke(group, ["map", *files])
    assert result.exit_code == 0, result.output
    assert "SOURCE ENTITY    TARGET ENTITY" in result.output
    assert "- (red x)" in result.output.split("CANDIDATE INFERENCES")[1]


def test_json_output_uses_the_fixture_notation(group, files):
    result = CliRunner().invoke(group, ["map", *files, "--json"])
    out = json.loads(result.output)
    assert out["mapping_count"] == 1
    assert out["mappings"][0]["entity_mhs"] == [["a", "x"], ["b", "y"]]
    assert out["mappings"][0]["cis"] == [["red", "x"]]


def test_params_by_lisp_name(group):
    args = [
        "map",
        str(PUBLISHED / "ct6base.json"),
        str(PUBLISHED / "ct6target.json"),
        "--vocab",
        str(PUBLISHED / "predicates.json"),
        "--json",
    ]
    runner = CliRunner()
    assert json.loads(runner.invoke(group, args).output)["mapping_count"] == 2
    one = runner.invoke(
        group, [*args, "--param", "greedy-max-#=1", "--param", "compute-reverse-inferences?=true"]
    )
    assert one.exit_code == 0, one.output
    assert json.loads(one.output)["mapping_count"] == 1


@pytest.mark.parametrize(
    "param, message",
    [
        ("greedy-max=2", "unknown parameter 'greedy-max'; valid names: greedy-cutoff"),
        ("greedy-max-#", "is not NAME=VALUE"),
        ("greedy-max-#=two", "is not true, false, null or a number"),
        ("greedy-max-#=1.5", "takes a whole number"),
        ("functor-trickle-down?=1", "takes true or false"),
        ("trickle-down=null", "cannot be null"),
        ("greedy-cutoff=2", "greedy-cutoff 2.0: must lie in [0, 1]"),
    ],
)
def test_bad_params_are_usage_errors(group, files, param, message):
    result = CliRunner().invoke(group, ["map", *files, "--param", param])
    assert result.exit_code == 2
    assert message in result.output


def test_description_without_predicates_asks_for_vocab(group):
    args = ["map", str(PUBLISHED / "ct5base.json"), str(PUBLISHED / "ct5target.json")]
    result = CliRunner().invoke(group, args)
    assert result.exit_code == 2
    assert "pass --vocab PREDICATES.json" in result.output


def test_unknown_predicate_is_an_error_with_a_hint(group, files, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps({"name": "bad", "entities": ["a"], "facts": [["flies", "a"]], "predicates": {}})
    )
    result = CliRunner().invoke(group, ["map", str(bad), files[1]])
    assert result.exit_code == 1
    assert "unknown predicate 'flies'; add it to the predicates file" in result.output


def test_non_files_need_a_registered_episode_resolver(group, files):
    result = CliRunner().invoke(group, ["map", "ep_0213", files[1]])
    assert result.exit_code == 2 and "no such file: ep_0213" in result.output
    seen = []

    def resolve(arg, ctx):
        seen.append(arg)
        return desc(arg, ["hits", "p", "q"])

    result = CliRunner().invoke(
        group, ["map", "ep_0213", files[1], "--json"], obj={"resolve_episode": resolve}
    )
    assert result.exit_code == 0, result.output
    assert seen == ["ep_0213"]
    assert json.loads(result.output)["mappings"][0]["entity_mhs"] == [["p", "x"], ["q", "y"]]
