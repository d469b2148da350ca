"""``analogist bench``: generate PARB benchmarks (run and report live with the runner).

``analogist bench generate --seed S --split dev|test [--size small|mvp|full] --out DIR`` writes
``items.jsonl`` (what a system under test may see), ``keys.jsonl`` and ``manifest.json``, prints
the counts and the shortcut audit, and exits 1 when the audit fails.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

import click

from analogist.bench.generation.generate import SIZES, generate_bench
from analogist.cli.common import echo_json, handle_errors


@click.group("bench")
def bench() -> None:
    """PARB, the analogical reasoning benchmark."""


@bench.command("generate")
@click.option("--seed", type=int, required=True, help="Any integer; same seed, same files.")
@click.option(
    "--split",
    type=click.Choice(["dev", "test"]),
    required=True,
    help="dev: the 12 development motifs; test: the 8 held-out motifs.",
)
@click.option(
    "--size",
    type=click.Choice(SIZES),
    default="mvp",
    show_default=True,
    help="small: 16 items; mvp: 48 (spec §23); full: every motif x family, twice.",
)
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False),
    required=True,
    help="Directory to write items.jsonl, keys.jsonl and manifest.json into.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@handle_errors
def generate_cmd(seed: int, split: str, size: str, out: str, as_json: bool) -> None:
    """Generate a versioned, content-hashed benchmark and audit it for shortcuts."""
    bench_ = generate_bench(seed, split, size)
    path = bench_.write(out)
    manifest = bench_.manifest
    if as_json:
        echo_json(manifest)
    else:
        _print_summary(manifest, str(path))
    if not manifest["audit"]["passed"]:
        failed = [k for k, ok in manifest["audit"]["checks"].items() if not ok]
        click.echo(
            f"error: the shortcut audit failed ({', '.join(failed)}); the generator, not the "
            "audit, needs fixing before this bench is used",
            err=True,
        )
        sys.exit(1)


def _print_summary(manifest: Mapping[str, Any], path: str) -> None:
    counts, audit = manifest["counts"], manifest["audit"]
    click.echo(
        f"PARB {manifest['generator_version']}  split={manifest['split']}  "
        f"size={manifest['size']}  seed={manifest['seed']}  items={counts['total']}"
    )
    click.echo(f"  written to {path}  bench_id {manifest['bench_id'][:16]}")
    click.echo("  families  " + "  ".join(f"{k}:{v}" for k, v in counts["family"].items()))
    click.echo("  skins     " + "  ".join(f"{k}:{v}" for k, v in counts["skin_kind"].items()))
    f2, cues, roles, ret = (
        audit[k] for k in ("f2_choice", "decoy_cues", "role_mapping", "retrieval")
    )
    click.echo("shortcut audit")
    click.echo(
        f"  F2 choice     surface overlap {f2['overlap']:.2f}  cosine {f2['cosine']:.2f}  "
        f"structure {f2['structure']:.2f}  (chance 0.50, n={f2['n']})"
    )
    click.echo(
        f"  decoy cues    length {cues['length']:.2f}  negation {cues['negation']:.2f}  "
        f"F2 signature size {cues['f2_signature_size']:.2f}  (limit {cues['limit']:.2f})"
    )
    click.echo(
        f"  role mapping  surface {roles['surface']:.2f}  context words "
        f"{roles['context_words']:.2f}  structure {roles['structure']:.2f}  "
        f"(chance {roles['chance']:.2f}, limit {roles['surface_limit']:.2f})"
    )
    click.echo(
        f"  retrieval@1   surface {max(ret['overlap'], ret['cosine']):.2f}  structure "
        f"{ret['structure']:.2f}  (chance {ret['chance']:.2f}); F8 structure as written "
        f"{ret['f8']['structure_as_written']:.2f}, re-abstracted {ret['f8']['structure_collapsed']:.2f}"
    )
    verdict = "passed" if audit["passed"] else "FAILED"
    click.echo(f"  audit {verdict}")


@bench.command("audit")
@click.argument("dirs", nargs=-1, type=click.Path(file_okay=False, exists=True))
@click.option(
    "--seeds",
    help="Audit generated benches of these seeds instead, e.g. 0-19 "
    "(lower half trains the adversary, upper half tests it).",
)
@click.option(
    "--split",
    "splits",
    multiple=True,
    type=click.Choice(["dev", "test"]),
    help="With --seeds: the split(s) to generate (repeatable; default both).",
)
@click.option(
    "--size",
    type=click.Choice(SIZES),
    default="full",
    show_default=True,
    help="With --seeds: the size to generate.",
)
@click.option(
    "--learners",
    default="lr,gbt",
    show_default=True,
    help="Learned adversaries: lr (logistic regression), gbt (boosted trees).",
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False),
    help="Also write the full audit (every adversary) as JSON to this file.",
)
@click.option(
    "--task",
    "tasks",
    multiple=True,
    type=click.Choice(["F2", "retrieval", "has_match", "F6", "F5", "roles"]),
    help="Audit only these decisions (repeatable; default all), e.g. --task retrieval "
    "(no sidecar is written for a partial audit).",
)
@click.option(
    "--jobs", default=1, show_default=True, help="With --seeds: processes generating benches."
)
@click.option("--json", "as_json", is_flag=True, help="Print the full audit as JSON.")
@handle_errors
def audit_cmd(
    dirs: tuple[str, ...],
    seeds: str | None,
    splits: tuple[str, ...],
    size: str,
    learners: str,
    out: str | None,
    tasks: tuple[str, ...],
    jobs: int,
    as_json: bool,
) -> None:
    """Adversarial shortcut audit: can a learner that never reads structure solve the bench?

    With DIRs: audits those benches (several of one split: the lower half of their seeds
    trains, the upper half tests; one: five-fold cross-fitting) and writes
    adversarial_audit.json beside each. Exits 1 when any adversary beats chance + 0.05.
    """
    import json as _json
    from pathlib import Path

    from analogist.bench.analysis import audit_set
    from analogist.bench.analysis.adversary import table
    from analogist.errors import BenchError

    if bool(dirs) == bool(seeds):
        raise BenchError("give bench directories or --seeds (e.g. --seeds 0-19), not both")
    names = tuple(x.strip() for x in learners.split(",") if x.strip())
    bad = [x for x in names if x not in ("lr", "gbt")]
    if bad:
        raise BenchError(f"--learners: unknown {', '.join(bad)}; use lr, gbt or lr,gbt")
    if dirs:
        benches = audit_set.load_dirs(dirs)
    else:
        benches = audit_set.generated(
            audit_set.parse_seeds(seeds or ""),
            splits or ("dev", "test"),
            size,
            lambda msg: click.echo(f"  {msg}", err=True),
            jobs=jobs,
        )
    audits = audit_set.audit_benches(benches, learners=names, tasks=tasks or None)
    doc = {"passed": all(a.passed for a in audits), "audits": [a.to_json() for a in audits]}
    if dirs and not tasks:  # a sidecar records the whole audit, never a part of it
        audit_set.write_sidecars(dirs, benches, audits)
    if out:
        Path(out).write_text(_json.dumps(doc, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if as_json:
        echo_json(doc)
    else:
        for a in audits:
            click.echo("\n".join(table(a)))
    if not doc["passed"]:
        failed = [f for a in audits for f in a.to_json()["failures"]]
        click.echo(
            f"error: the adversarial audit failed ({len(failed)} adversaries beat chance "
            f"+ 0.05, e.g. {', '.join(failed[:4])}); fix the generator, not the audit",
            err=True,
        )
        sys.exit(1)
