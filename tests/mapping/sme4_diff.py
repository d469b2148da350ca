"""Comparing the engine with SME v4's results (gold data or published fixtures).

The fields and tolerances are those of ``sme/test.lisp`` and of the fixture notes: the
match-hypothesis, kernel and mapping counts are equal; mapping N is SME's N-th mapping
(its tie order included) and agrees on hypothesis count, score (within 0.1%), and, as sets,
entity correspondences, root correspondences and candidate inferences.

Run as a script for agreement figures: ``python tests/mapping/sme4_diff.py dev [heldout]``.
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from analogist.mapping import SMEParams, match, to_fixture_json
from analogist.signature.description import Description, PredicateInfo, parse_predicates

GOLD = Path(__file__).resolve().parent / "sme4_gold"
REL_TOL = 1e-3


def _canon(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b), 1e-12)


def mapping_diff(got: dict, want: dict) -> list[str]:
    """What differs between a produced and an expected mapping (empty when they agree)."""
    out = []
    if got["mh_count"] != want["mh_count"]:
        out.append(f"mh_count {got['mh_count']} != {want['mh_count']}")
    if not _close(got["score"], want["score"]):
        out.append(f"score {got['score']:.6g} != {want['score']:.6g}")
    for key in ("entity_mhs", "root_mhs", "cis"):
        a = {_canon(x) for x in got[key]}
        b = {_canon(x) for x in want[key]}
        if a != b:
            out.append(f"{key}: extra {sorted(a - b)[:3]} missing {sorted(b - a)[:3]}")
    return out


def result_diff(got: dict, want: dict) -> list[str]:
    """What differs between a produced and an expected result, mapping N against mapping N."""
    out = [
        f"{k} {got[k]} != {want[k]}"
        for k in ("mh_count", "kernel_count", "mapping_count")
        if got[k] != want[k]
    ]
    for i, (g, w) in enumerate(zip(got["mappings"], want["mappings"]), 1):
        out += [f"mapping {i}: {d}" for d in mapping_diff(g, w)]
    return out


def agrees_up_to_ties(got: dict, want: dict) -> bool:
    """Agreement when mappings of equal score may come in another order."""
    if any(got[k] != want[k] for k in ("mh_count", "kernel_count", "mapping_count")):
        return False
    unused = list(got["mappings"])
    for w in want["mappings"]:
        m = next((g for g in unused if not mapping_diff(g, w)), None)
        if m is None:
            return False
        unused.remove(m)
    return True


def load_predicates(set_name: str = "dev") -> dict[str, PredicateInfo]:
    """The predicates of a gold set: the generator's, or SME's own for ``dgroups``."""
    path = (
        GOLD.parent / "sme_published" / "predicates.json"
        if set_name == "dgroups"
        else GOLD / "predicates.json"
    )
    return parse_predicates(json.loads(path.read_text()))


def load_set(name: str) -> list[dict]:
    """The gold pairs of one set (``dev`` or ``heldout``)."""
    with gzip.open(GOLD / f"{name}.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def run_pair(pair: dict, preds: dict[str, PredicateInfo]) -> dict:
    base = Description.from_json(pair["base"], preds)
    target = Description.from_json(pair["target"], preds)
    params = SMEParams.from_fixture_dict(pair["expected"]["params"])
    return to_fixture_json(match(base, target, params))


def iter_diffs(
    pairs: list[dict], preds: dict[str, PredicateInfo]
) -> Iterator[tuple[dict, list[str], bool]]:
    for pair in pairs:
        try:
            got = run_pair(pair, preds)
        except Exception as e:  # noqa: BLE001 - a crash is a disagreement to report
            yield pair, [f"raised {type(e).__name__}: {e}"], False
            continue
        yield pair, result_diff(got, pair["expected"]), agrees_up_to_ties(got, pair["expected"])


def main(argv: list[str]) -> None:
    verbose = "-v" in argv
    for name in [a for a in argv if not a.startswith("-")] or ["dev"]:
        preds = load_predicates(name)
        pairs = load_set(name)
        started = time.perf_counter()
        bad, tie_ok, by_kind = [], 0, {}
        for pair, diff, ties in iter_diffs(pairs, preds):
            k = by_kind.setdefault(pair["kind"], [0, 0])
            k[1] += 1
            if diff:
                bad.append((pair["name"], diff))
                tie_ok += ties
            else:
                k[0] += 1
        elapsed = time.perf_counter() - started
        n = len(pairs)
        print(
            f"{name}: {n - len(bad)}/{n} pairs agree exactly ({100 * (n - len(bad)) / n:.1f}%),"
            f" {n - len(bad) + tie_ok}/{n} up to tie order; {elapsed:.1f} s"
        )
        print("  by kind: " + ", ".join(f"{k} {a}/{t}" for k, (a, t) in sorted(by_kind.items())))
        for pname, diff in bad[: (len(bad) if verbose else 5)]:
            print(f"  {pname}: {'; '.join(diff[:3])}")


if __name__ == "__main__":
    main(sys.argv[1:])
