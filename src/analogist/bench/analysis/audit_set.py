"""Running the adversarial audit on bench directories or on freshly generated seeds.

``analogist bench audit DIR...`` loads (hash-verified) benches, groups them by split and audits
each group (:func:`analogist.bench.analysis.adversary.adversarial_audit`). The result is written beside
each bench as ``adversarial_audit.json``: the manifest is sealed by its own sha256, so the audit
goes into a sidecar that names the ``bench_id`` of every bench it covered and never touches the
hashed files. ``--seeds 0-19 --split dev --split test --size full`` audits generated benches
without writing them.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from analogist.bench.analysis.adversary import LEARNERS, AdversarialAudit, adversarial_audit
from analogist.bench.generation.files import Bench, load_bench
from analogist.errors import BenchError

SIDECAR = "adversarial_audit.json"


def parse_seeds(text: str) -> list[int]:
    """ "0-19" or "0,3,5" (or a mix: "0-4,9") as a sorted list of seeds."""
    out: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        m = re.fullmatch(r"(\d+)\s*-\s*(\d+)|(\d+)", part)
        if not m:
            raise BenchError(f"seeds {text!r}: write a range like 0-19 or a list like 0,1,2")
        if m.group(3) is not None:
            out.add(int(m.group(3)))
        else:
            out.update(range(int(m.group(1)), int(m.group(2)) + 1))
    if not out:
        raise BenchError(f"seeds {text!r}: no seed given; write a range like 0-19")
    return sorted(out)


def audit_benches(
    benches: Sequence[Bench],
    *,
    learners: Sequence[str] = LEARNERS,
    seed: int = 0,
    tasks: Sequence[str] | None = None,
) -> list[AdversarialAudit]:
    """One audit per split among ``benches`` (each bench's generator seed orders train/test);
    ``tasks`` limits it to some decisions (e.g. ``("retrieval",)``; None: all)."""
    by_split: dict[str, list[tuple[int, Bench]]] = defaultdict(list)
    for b in benches:
        by_split[str(b.manifest.get("split"))].append((int(b.manifest.get("seed", 0)), b))
    out = []
    for split in sorted(by_split):
        group = by_split[split]
        seeds = [s for s, _ in group]
        if len(set(seeds)) != len(seeds):
            raise BenchError(
                f"split {split}: two benches share a generator seed "
                f"({sorted(seeds)}); audit benches of distinct seeds"
            )
        out.append(
            adversarial_audit(
                [(s, b.items) for s, b in group], learners=learners, seed=seed, tasks=tasks
            )
        )
    return out


def _generate(args: tuple[int, str, str]) -> Bench:
    from analogist.bench.generation.generate import generate_bench

    return generate_bench(*args)


def generated(
    seeds: Sequence[int],
    splits: Sequence[str],
    size: str,
    progress: Callable[[str], None] | None = None,
    jobs: int = 1,
) -> list[Bench]:
    """Generate the benches of ``seeds`` x ``splits`` (in ``jobs`` processes; the benches are
    the same whatever the number, each is seeded on its own)."""
    todo = [(s, split, size) for split in splits for s in seeds]
    if jobs <= 1:
        out = []
        for args in todo:
            if progress:
                progress(f"generating {args[1]} seed {args[0]}")
            out.append(_generate(args))
        return out
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        out = []
        for args, b in zip(todo, pool.imap(_generate, todo)):
            if progress:
                progress(f"generated {args[1]} seed {args[0]}")
            out.append(b)
        return out


def sidecar(audit: AdversarialAudit, benches: Sequence[Bench]) -> dict[str, Any]:
    """The sidecar document: the audit and the ids of the benches it covered."""
    body = {
        "audit": audit.to_json(),
        "benches": [
            {
                "seed": b.manifest.get("seed"),
                "size": b.manifest.get("size"),
                "bench_id": b.manifest.get("bench_id"),
            }
            for b in benches
        ],
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return {**body, "sha256": hashlib.sha256(text.encode()).hexdigest()}


def write_sidecars(
    dirs: Sequence[str | Path], benches: Sequence[Bench], audits: Sequence[AdversarialAudit]
) -> list[Path]:
    """Write ``adversarial_audit.json`` into each bench directory (its split's audit)."""
    paths = []
    for d, b in zip(dirs, benches):
        audit = next(a for a in audits if a.split == b.manifest.get("split"))
        group = [x for x in benches if x.manifest.get("split") == audit.split]
        p = Path(d) / SIDECAR
        tmp = p.with_suffix(".json.tmp")
        tmp.write_text(
            json.dumps(sidecar(audit, group), indent=1, sort_keys=True) + "\n", encoding="utf-8"
        )
        tmp.replace(p)
        paths.append(p)
    return paths


def read_sidecar(directory: str | Path, bench_id: str | None = None) -> dict | None:
    """The sidecar audit of a bench directory, or None when there is none (or it covers
    other benches than ``bench_id``)."""
    p = Path(directory) / SIDECAR
    if not p.exists():
        return None
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    if bench_id and bench_id not in {b.get("bench_id") for b in doc.get("benches", [])}:
        return None
    return doc


def load_dirs(dirs: Sequence[str]) -> list[Bench]:
    return [load_bench(d) for d in dirs]
