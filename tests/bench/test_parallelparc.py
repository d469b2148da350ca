"""The ParallelPARC adapter on six committed rows (MIT; tests/bench/parallelparc/README.md) with
a scripted model: the real staged encoder, SME and gate; cosine and bare baselines; scoring."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from analogist.bench.suites.external.parallelparc import (
    CANDIDATES,
    ItemAnswer,
    best_threshold,
    read_csv,
    run,
    score_method,
)
from analogist.cli.main import cli
from analogist.encode import steps as S
from analogist.errors import BenchError
from analogist.models.backend import BaseLLM
from analogist.models.embedding import HashingEmbedder
from analogist.models.llm import Completion, Request, completion_from_text
from analogist.signature import default_vocabulary

CSV = Path(__file__).parent / "parallelparc" / "subset.csv"
PHRASES = list(S.relation_phrases(default_vocabulary()))
# the scripted encoder's structures: (from, phrase index, to) per role
STRUCTURES = {
    "analogue": [("R1", 3, "R2"), ("R2", 1, "R3")],  # R1 sends_to R2, R2 depends_on R3
    "distractor": [("R2", 5, "R1"), ("R3", 2, "R2")],  # another mechanism on the same parts
    "random": [("R1", 6, "R2")],
}


class ParagraphModel(BaseLLM):
    """A scripted model: it recognises which paragraph a request is about and answers each
    encoder step with that paragraph's planned structure (source and target share one), and
    answers the bare questions correctly."""

    provider = "scripted"

    def __init__(self, rows):
        self.model, self.base_url, self.params = "paragraphs", None, {}
        self.kind = {}
        for r in rows:
            self.kind.update(
                {
                    r.source: "analogue",
                    r.target: "analogue",
                    r.distractor: "distractor",
                    r.random: "random",
                }
            )
        self.targets = {r.target for r in rows}
        self.calls = 0

    def _which(self, text: str) -> str:
        hits = [p for p in self.kind if p in text]
        assert hits, "the request names no known paragraph"
        return max(hits, key=len)

    def generate(self, request: Request) -> Completion:
        self.calls += 1
        user = request.messages[-1][1]
        step = request.prompt_version.rsplit(":", 1)[-1]
        if request.prompt_version.startswith("parallelparc-bare"):
            if step == "binary":
                b = user.split("Paragraph B:\n", 1)[1]
                ans = {"analogous": self._which(b) in self.targets}
            else:
                opts = re.split(r"Option \d:\n", user)[1:]
                k = next(i for i, o in enumerate(opts, 1) if self._which(o) in self.targets)
                ans = {"choice": str(k)}
            return completion_from_text(json.dumps(ans), request)
        para = self._which(user)
        shape = STRUCTURES[self.kind[para]]
        if step == "roles":
            words = list(dict.fromkeys(w for w in re.findall(r"[A-Za-z]{6,}", para)))[:3]
            ans = {
                "domain": "process",
                "roles": [{"entity": w, "part": f"part {i}"} for i, w in enumerate(words, 1)],
            }
        elif step == "relations":
            ans = {
                r: {"relation": "none", "to": "R1" if r != "R1" else "R2"}
                for r in ("R1", "R2", "R3")
            }
            for a, p, b in shape:
                ans[a] = {"relation": PHRASES[p], "to": b}
        elif step == "causal_chain":
            terms = S.relation_phrases(default_vocabulary())
            a, p, b = shape[0]
            ans = {
                "links": [
                    {
                        "cause": [terms[PHRASES[p]], a, b],
                        "link": "causes",
                        "effect": ["degraded", b],
                    }
                ]
            }
        else:
            ans = {
                "symptom": "the process stalls",
                "violated_invariant": "each step is fed",
                "fix": {"operator": "restore", "args": ["R1", "R2"]},
                "L1": "one part feeds the next",
                "L2": "a chain of feeding steps",
                "L3": "dependency chain",
            }
        return completion_from_text(json.dumps(ans), request)


@pytest.fixture(scope="module")
def rows():
    return read_csv(CSV)


def test_reads_the_committed_subset(rows):
    assert len(rows) == 6 and rows[0].item_id.startswith("0:")
    assert "echolocation" in rows[0].source and rows[0].distractor != rows[0].target


def test_pipeline_and_bare_through_the_real_encoder_sme_and_gate(rows):
    model = ParagraphModel(rows)
    results = run(rows[:3], ["pipeline", "bare"], llm=model, n_boot=200)
    pipe, bare = results
    assert pipe.method.startswith("pipeline (scripted:")
    assert "0 of 12 paragraphs rejected" in pipe.notes[0]
    # the scripted encoder gives source and target one structure: accepted and chosen
    assert pipe.choice_accuracy.estimate == 1.0 and pipe.target_accepted.estimate == 1.0
    assert pipe.distractor_rejected.estimate == 1.0 and pipe.binary_accuracy.estimate == 1.0
    for a in pipe.answers:
        assert a.scores["target"] > a.scores["distractor"]
    assert bare.choice_accuracy.estimate == 1.0 and bare.binary_accuracy.estimate == 1.0
    assert model.calls == 3 * 4 * 4 + 3 * 4  # 4 steps per paragraph; 3 binary + 1 choice per item


def test_cosine_baseline_and_cross_fitting(rows):
    (res,) = run(rows, ["cosine"], embedder=HashingEmbedder(), n_boot=200)
    assert res.method == "cosine:hashing-384-bi" and res.answered == 6
    assert 0 <= res.choice_accuracy.low <= res.choice_accuracy.estimate <= res.choice_accuracy.high
    assert "cross-fitting" in res.notes[0]
    sims = np.array([[0.9, 0.5, 0.1], [0.8, 0.7, 0.2]])
    t = best_threshold(sims)
    assert 0.7 < t < 0.8


def test_scoring_counts_pairs_per_item_and_distractor_rates():
    answers = [
        ItemAnswer(
            "a",
            {"target": True, "distractor": True, "random": False},
            dict.fromkeys(CANDIDATES, 0.0),
            "distractor",
        ),
        ItemAnswer(
            "b",
            {"target": True, "distractor": False, "random": False},
            dict.fromkeys(CANDIDATES, 0.0),
            "target",
        ),
    ]
    r = score_method("m", answers, n_boot=200)
    assert r.binary_accuracy.estimate == pytest.approx((2 / 3 + 1) / 2)
    assert r.distractor_rejected.estimate == 0.5 and r.distractor_chosen.estimate == 0.5
    assert r.choice_accuracy.estimate == 0.5 and r.target_accepted.estimate == 1.0


def test_methods_that_need_a_model_say_so(rows):
    with pytest.raises(BenchError, match="needs a model"):
        run(rows, ["pipeline"])
    with pytest.raises(BenchError, match="unknown method"):
        run(rows, ["magic"])


def test_bad_csv_is_one_line(tmp_path):
    bad = tmp_path / "x.csv"
    bad.write_text("a,b\n1,2\n")
    with pytest.raises(BenchError, match="no column 'source_paragraph'"):
        read_csv(bad)
    r = CliRunner().invoke(cli, ["bench", "external", "parallelparc", "--csv", str(bad)])
    assert r.exit_code == 1 and "error:" in r.output and "Traceback" not in r.output


def test_cli_runs_the_cosine_baseline(tmp_path):
    r = CliRunner().invoke(
        cli,
        [
            "--embedder",
            "hashing",
            "--db",
            str(tmp_path / "d.db"),
            "bench",
            "external",
            "parallelparc",
            "--csv",
            str(CSV),
            "--n-boot",
            "200",
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "cosine:hashing" in r.output and "choice accuracy" in r.output
    doc = json.loads((tmp_path / "o" / "results.json").read_text())
    assert doc["items"] == 6 and len(doc["methods"][0]["answers"]) == 6
