"""bench/model_encoding.py (encoder fidelity per step on the example memory) with a scripted
model: it runs the staged encoder, scores against gold and prints per-step figures."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# the scripted relations answer for the first sampled episode (the homepage cache stampede)
RELS = {
    "R1": "requests uses up capacity or supply of Postgres",
    "R2": "warm-up job decides whether requests may proceed or be admitted",
    "R3": "Postgres is a copy, summary or computation made from requests",
}


def run_script(tmp_path: Path, answers: Path, *extra: str) -> subprocess.CompletedProcess:
    """bench/model_encoding.py on one sampled episode, staged-v5, relations only, scripted."""
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "model_encoding.py"),
            "--model",
            f"scripted:{answers}",
            "--db",
            str(tmp_path / "c.db"),
            "--sample",
            "1",
            "--show",
            "--relations-only",
            "--version",
            "staged-v5",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_the_script_scores_a_scripted_encoding_per_step(tmp_path):
    # the first sampled episode is the homepage cache stampede: requests, the warm-up job, Postgres
    roles = {
        "domain": "software",
        "roles": [
            {"entity": "requests", "part": "many clients"},
            {"entity": "warm-up job", "part": "schedule that aligns them"},
            {"entity": "Postgres", "part": "backing resource"},
        ],
    }
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([roles, RELS]))
    out = run_script(tmp_path, answers, "--json", str(tmp_path / "r.json"))
    assert out.returncode == 0, out.stderr
    assert "consumes(R1,R3); gates(R2,R1); derives_from(R3,R1)" in out.stdout
    # gold: depends_on(REQ,SRC), consumes(REQ,SRC), gates(SCH,REQ): 2 of 3 written match
    assert "relations micro P/R/F1 0.67 / 0.67 / 0.67" in out.stdout
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["summary"]["steps"]["relations"]["matched"] == 2 and rep["stats"]["calls"] == 2


def test_the_oracle_roles_option_replaces_the_roles_step_and_says_so(tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([RELS]))  # no roles answer: the roles step makes no call
    roles = tmp_path / "roles.json"
    roles.write_text(
        json.dumps(
            {
                "_about": "test",
                "ep_sw_cache_stampede_homepage": ["requests", "warm-up job", "Postgres"],
            }
        )
    )
    out = run_script(tmp_path, answers, "--roles", str(roles))
    assert out.returncode == 0, out.stderr
    assert "ORACLE roles from" in out.stderr
    assert "R1=requests (part named by the oracle file)" in out.stdout
    assert "consumes(R1,R3); gates(R2,R1); derives_from(R3,R1)" in out.stdout
    assert "live calls 1 " in out.stdout
