"""PARB generation: sizes, determinism, splits that never mix, files that refuse tampering, and
the ``bench generate`` command."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from click.testing import CliRunner

from analogist.bench import FAMILIES, generate_bench, load_bench
from analogist.bench.generation.generate import MVP_COUNTS, plan
from analogist.bench.generation.motifs import DEV_MOTIFS, HELDOUT_MOTIFS, all_motifs
from analogist.bench.generation.signatures import gold_raw
from analogist.cli.bench_cmd import bench as bench_group
from analogist.episode import parse_episode
from analogist.errors import BenchError
from analogist.signature import default_vocabulary, parse_term

from .parb_helpers import bench


def _invariant(sig: dict) -> tuple:
    rels = tuple(sorted(r[0] for r in sig["relations"]))
    links = tuple(
        sorted((parse_term(c).functor, k, parse_term(e).functor) for c, k, e in sig["causal_chain"])
    )
    return rels, links


def _motif_index() -> dict[tuple, str]:
    """Role-free structural invariant of every motif variant -> its motif (unique, checked)."""
    index: dict[tuple, str] = {}
    for m in all_motifs():
        for v in ["true", *(x.name for x in m.variants)]:
            key = _invariant(gold_raw(m, v))
            assert index.setdefault(key, m.name) == m.name
    return index


def _episodes(item) -> list[dict]:
    i = item.inputs
    out = list(i.get("memory", [])) + list(i.get("candidates", []))
    return out + ([i["source"]] if "source" in i else [])


def test_small_is_sixteen_items_two_per_family():
    b = generate_bench(123, "dev", "small")
    assert len(b.items) == 16
    assert Counter(it.family for it in b.items) == {f: 2 for f in FAMILIES}


def test_mvp_is_spec_23_weighting():
    b = bench(5, "test", "mvp")
    assert len(b.items) == 48
    assert dict(Counter(it.family for it in b.items)) == MVP_COUNTS
    assert (
        sum(MVP_COUNTS[f] for f in ("F2", "F3", "F5", "F7")) == 32
    )  # concentrated there (spec §23)
    assert MVP_COUNTS["F4"] == 6  # every F4 kind, three of which exact isomorphism cannot solve
    nonce = b.manifest["counts"]["skin_kind"]["nonce"]
    assert 0.35 <= nonce / 48 <= 0.6


@pytest.mark.parametrize("split,motifs", [("dev", DEV_MOTIFS), ("test", HELDOUT_MOTIFS)])
def test_full_covers_every_motif_and_family(split, motifs):
    from analogist.bench.generation.family_rerepresentation import F8_CLUSTER, _f8_structures
    from analogist.bench.generation.motifs import motif

    f8 = {m for m in motifs if len(_f8_structures(motif(m))) >= F8_CLUSTER}
    cells = Counter((s.motif.name, s.family) for s in plan(0, split, "full"))
    want = {(m, f) for m in motifs for f in FAMILIES if f != "F8" or m in f8}
    assert set(cells) == want
    assert {n for c, n in cells.items() if c[1] != "F8"} == {2}
    # F8: every usable motif at least twice, within one of any other; the slots of motifs that cannot take an F8 target
    # go to usable ones drawn per bench, so which motifs get the extras changes with the seed
    assert sum(n for c, n in cells.items() if c[1] == "F8") == 2 * len(motifs)
    per = [n for c, n in cells.items() if c[1] == "F8"]
    assert min(per) >= 2 and max(per) - min(per) <= 1

    def most(seed: int) -> frozenset[str]:
        c = Counter(s.motif.name for s in plan(seed, split, "full") if s.family == "F8")
        return frozenset(m for m, n in c.items() if n == max(c.values()))

    extras = {seed: most(seed) for seed in range(6)}
    assert len(set(extras.values())) > 1


def test_same_seed_gives_byte_identical_files(tmp_path):
    a = generate_bench(42, "dev", "small").write(tmp_path / "a")
    b = generate_bench(42, "dev", "small").write(tmp_path / "b")
    for name in ("items.jsonl", "keys.jsonl", "manifest.json"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    c = generate_bench(43, "dev", "small").write(tmp_path / "c")
    assert (a / "items.jsonl").read_bytes() != (c / "items.jsonl").read_bytes()


@pytest.mark.parametrize("split,allowed", [("dev", DEV_MOTIFS), ("test", HELDOUT_MOTIFS)])
def test_development_and_held_out_motifs_never_mix(split, allowed):
    index = _motif_index()
    b = bench(2, split, "mvp")
    assert set(b.manifest["counts"]["motif"]) <= set(allowed)
    for it in b.items:
        assert it.split == split and it.motif in allowed
        assert (
            _invariant(it.key["target_signature"]) in index
            or it.key["target_variant"].startswith("split")
            or it.key["extra_mechanism"]
        )
        for ep in _episodes(it):
            assert index[_invariant(ep["signature"])] in allowed, (it.item_id, ep["id"])


def test_stored_episodes_are_valid_example_memory_records():
    vocab = default_vocabulary()
    b = bench(2, "dev", "mvp")
    for it in b.items:
        for ep in _episodes(it):
            assert set(ep) == {"id", "kind", "text", "outcome", "time", "provenance", "signature"}
            episode = parse_episode(ep, vocab)
            assert episode.signature.levels["L0"] == ep["text"]


def test_load_bench_round_trips_and_refuses_tampering(tmp_path):
    d = generate_bench(7, "test", "small").write(tmp_path / "b")
    loaded = load_bench(d)
    assert [it.item_id for it in loaded.items] == [
        it.item_id for it in generate_bench(7, "test", "small").items
    ]
    assert loaded.items_text == (d / "items.jsonl").read_text()
    text = (d / "keys.jsonl").read_text()
    (d / "keys.jsonl").write_text(text.replace('"transfer"', '"withhold"', 1))
    with pytest.raises(BenchError, match="keys.jsonl does not match"):
        load_bench(d)
    (d / "keys.jsonl").write_text(text)
    manifest = json.loads((d / "manifest.json").read_text())
    manifest["counts"]["total"] = 99
    (d / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BenchError, match="manifest.json was modified"):
        load_bench(d)
    with pytest.raises(BenchError, match="cannot read"):
        load_bench(tmp_path / "nowhere")


def test_manifest_records_counts_hashes_version_and_audit():
    m = bench(2, "dev", "mvp").manifest
    assert m["seed"] == 2 and m["split"] == "dev" and m["size"] == "mvp"
    assert m["generator_version"] and len(m["bench_id"]) == 64
    assert set(m["files"]) == {"items.jsonl", "keys.jsonl"}
    assert m["counts"]["total"] == 48 and m["counts"]["split"] == {"dev": 48}
    assert m["audit"]["passed"] is True


def test_unknown_size_or_split_is_an_error():
    with pytest.raises(BenchError, match="unknown size"):
        generate_bench(1, "dev", "huge")
    with pytest.raises(BenchError, match="unknown split"):
        generate_bench(1, "train", "small")


def test_cli_generate_writes_the_bench_and_prints_the_audit(tmp_path):
    out = tmp_path / "parb"
    result = CliRunner().invoke(
        bench_group,
        ["generate", "--seed", "3", "--split", "dev", "--size", "small", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert "shortcut audit" in result.output and "audit passed" in result.output
    assert load_bench(out).manifest["size"] == "small"
    result = CliRunner().invoke(
        bench_group,
        [
            "generate",
            "--seed",
            "3",
            "--split",
            "dev",
            "--size",
            "small",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert json.loads(result.output)["counts"]["total"] == 16
    result = CliRunner().invoke(
        bench_group, ["generate", "--seed", "3", "--split", "nope", "--out", str(out)]
    )
    assert result.exit_code != 0


def test_files_do_not_depend_on_the_process_hash_seed(tmp_path):
    import os
    import subprocess
    import sys

    code = (
        "import sys; from analogist.bench import generate_bench; "
        "generate_bench(5, 'test', 'small').write(sys.argv[1])"
    )
    for h in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": h}
        subprocess.run([sys.executable, "-c", code, str(tmp_path / h)], check=True, env=env)
    for name in ("items.jsonl", "keys.jsonl", "manifest.json"):
        assert (tmp_path / "1" / name).read_bytes() == (tmp_path / "2" / name).read_bytes()


@pytest.mark.parametrize("split", ["dev", "test"])
def test_memories_hold_one_source_among_look_alikes(split):
    """Every memory holds at most one episode of the target's structure (the keyed source, or
    none), each structure of a motif at most once, and, with a match, every other structure
    its family shows of the target's motif as well (F8: the target unsplit)."""
    from analogist.bench.execution.answer import rename_target
    from analogist.bench.execution.iso import isomorphism, name_free_form

    for it in bench(1, split, "mvp").items:
        if "memory" not in it.inputs:
            continue
        memory = it.inputs["memory"]
        forms = [name_free_form(ep["signature"]) for ep in memory]
        assert len(set(forms)) == len(forms), it.item_id
        labels = it.key["memory_roles"]
        cluster = [ep for ep in memory if labels[ep["id"]] in ("source", "decoy_near", "decoy_far")]
        assert len(cluster) >= 2 or it.family == "F8", it.item_id
        if it.family == "F8":
            continue
        tsig = rename_target(it.key["target_signature"], it.key["target_roles"])
        exact = [ep["id"] for ep in memory if isomorphism(ep["signature"], tsig) is not None]
        gold = it.key["gold_source"]
        assert exact == ([gold] if gold else []), it.item_id
