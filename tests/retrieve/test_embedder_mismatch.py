"""A memory opened with another embedder than its vectors were stored with says so, in the
vector channels' skip reasons and in `analogist info`, naming the embedder to use."""

from __future__ import annotations

from click.testing import CliRunner

from analogist.cli.main import cli
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from tests.scale.episodes import lines


def test_the_skip_reason_and_info_name_the_embedder_the_vectors_are_for(tmp_path):
    db = tmp_path / "m.db"
    with Memory(db, embedder=HashingEmbedder(dim=64)) as m:
        m.add(lines(2, 0, 12))
    with Memory(db, embedder=HashingEmbedder(dim=32)) as m:
        pool = m.search("ep_3", channels=["S2", "M.emb"], k=3)
        assert not any(pool.hits.values())
        assert set(pool.skipped) == {"S2.L2", "S2.L3", "M.emb"}
        for reason in pool.skipped.values():
            assert "stored for embedder 'hashing-32-bi': this memory's vectors are for " in reason
            assert "'hashing-64-bi'; open it with that embedder" in reason
    with Memory(db, embedder=HashingEmbedder(dim=64)) as m:  # the right one finds them
        assert m.search("ep_3", channels=["S2.L2"], k=3).hits["S2.L2"]
    run = CliRunner().invoke(cli, ["--db", str(db), "--embedder", "hashing:32", "info"])
    assert run.exit_code == 0, run.output
    assert "stored vectors: hashing-64-bi" in run.output
    assert "note: the newest episode's vectors are for hashing-64-bi, not for the embedder" in (
        run.output
    )
    ok = CliRunner().invoke(cli, ["--db", str(db), "--embedder", "hashing:64", "info"])
    assert "stored vectors: hashing-64-bi" in ok.output and "note:" not in ok.output


def test_an_empty_memory_keeps_the_plain_reason(tmp_path):
    with Memory(tmp_path / "e.db", embedder=HashingEmbedder(dim=32)) as m:
        from analogist.retrieve.embedding import no_vectors_reason

        assert no_vectors_reason(m.indexes, "L2") == (
            "no L2 vectors are stored for embedder 'hashing-32-bi' (add episodes, or "
            "Memory.reindex(embedder) after changing embedders)"
        )
