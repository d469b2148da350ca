"""Throughput of the structure-mapping engine, side by side with the real SME v4, and its
behaviour on huge inputs.

Generates seeded random description pairs shaped like structural signatures: 4-10 entities,
binary relations drawn from ~20 predicates, and ``cause``/``enables``/``prevents`` facts over
them (a quarter of the relations are higher-order). The target is the base with its entities
renamed and about a third of its facts replaced, so that pairs have real but partial
structure in common, as retrieved analogues do. Times :func:`analogist.mapping.match` on one
core at 5-15, 30 and 80 relations with *fresh* descriptions (each pair's descriptions are
built inside the timed loop, as SME builds a new description per pair) and prints matches
and mappings per second. Time is the process's CPU time, best of ``--repeat`` runs, for both
engines, so load from other processes disturbs the ratio less.

``--compare-sme [ORACLE]``: also runs the same pairs through the real SME v4 (the
``sme4-oracle`` driver, needs sbcl; one sbcl process, one core): SME's CPU time per pair for
building both descriptions, matching and building its result, after loading. The engines
take turns pass by pass (analogist, SME, analogist, SME, ...; the sbcl process waits for each
pass), ``--repeat`` passes each, so that both see the same machine load; each rate is the
engine's best pass and the ratio printed is analogist / SME of the best passes, followed by
the median and range of the ratios of the passes run side by side. The load average is
printed before and after. The first line says which mapper runs: the compiled core, or pure
Python and why.

``--huge``: self-maps a 1,600- and a 10,000-relation signature-like description under the
default match-hypothesis budget and prints time, peak memory (RSS) and the outcome.

Usage: ``python bench/mapping.py [--seed N] [--pairs N] [--compare-sme PATH] [--huge] [--json]``
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from analogist.errors import MappingError
from analogist.mapping import compiled, match, scoring, to_fixture_json
from analogist.mapping.hypotheses import DEFAULT_MH_BUDGET
from analogist.signature.description import Description, Entity, Expr, PredicateInfo

FIRST_ORDER = [f"rel_{i}" for i in range(20)]
HIGHER_ORDER = ["cause", "enables", "prevents"]
PREDICATES = {p: PredicateInfo(p, "relation", 2) for p in FIRST_ORDER + HIGHER_ORDER}
SIZES = (("5-15", 5, 15), ("30", 30, 30), ("80", 80, 80))


def random_facts(rng: random.Random, entities: list[str], n_relations: int) -> list[Expr]:
    """``n_relations`` facts: three quarters binary relations, the rest causal links."""
    n_high = n_relations // 4
    first: list[Expr] = []
    while len(first) < n_relations - n_high:
        a, b = rng.sample(entities, 2)
        fact = Expr(rng.choice(FIRST_ORDER), (a, b))
        if fact not in first:
            first.append(fact)
    high: list[Expr] = []
    pool = list(first)
    while len(high) < n_high:
        cause, effect = rng.sample(pool, 2)
        fact = Expr(rng.choice(HIGHER_ORDER), (cause, effect))
        if fact not in high:
            high.append(fact)
            pool.append(fact)
    return first + high


def _rename(term: Expr | str, names: dict[str, str]) -> Expr | str:
    if isinstance(term, Expr):
        return Expr(term.functor, tuple(_rename(a, names) for a in term.args))  # type: ignore
    return names[term]


def make_pair_json(rng: random.Random, n_relations: int) -> tuple[dict, dict]:
    """A base and a perturbed, renamed copy of it as target, in the fixture JSON format."""
    n_entities = rng.randint(4, 10)
    entities = [f"e{i}" for i in range(n_entities)]
    facts = random_facts(rng, entities, n_relations)
    names = {e: f"t{i}" for i, e in enumerate(rng.sample(entities, n_entities))}
    kept = [_rename(f, names) for f in facts if rng.random() > 0.33]
    fresh = random_facts(rng, list(names.values()), n_relations)
    extra = [f for f in fresh if f not in kept][: n_relations - len(kept)]
    base = {"name": "base", "entities": entities, "facts": [f.to_json() for f in facts]}
    target = {
        "name": "target",
        "entities": list(names.values()),
        "facts": [f.to_json() for f in kept + extra],
    }  # type: ignore[union-attr]
    return base, target


def make_pair(rng: random.Random, n_relations: int) -> tuple[Description, Description]:
    """The same pair as :func:`make_pair_json`, as descriptions."""
    b, t = make_pair_json(rng, n_relations)
    return Description.from_json(b, PREDICATES), Description.from_json(t, PREDICATES)


def batch(seed: int, low: int, high: int, pairs: int) -> list[tuple[dict, dict]]:
    rng = random.Random(seed)
    return [make_pair_json(rng, rng.randint(low, high)) for _ in range(pairs)]


def python_pass(pairs: list[tuple[dict, dict]], cold: bool = False) -> tuple[float, int]:
    """CPU seconds (one thread, one core) of one pass of what SME is timed on per pair:
    building both descriptions, matching, and writing the result in the fixture layout; and
    the mappings found. ``cold``: empty the single-precision rounding memo first (it is the
    only state a pass leaves for the next; the descriptions are fresh either way)."""
    if cold:
        scoring._F32_MEMO.clear()
    mappings = 0
    started = time.process_time()
    for b, t in pairs:
        result = match(Description.from_json(b, PREDICATES), Description.from_json(t, PREDICATES))
        to_fixture_json(result)
        mappings += result.mapping_count
    return time.process_time() - started, mappings


def _rates(n: int, seconds: float, mappings: int) -> dict[str, float]:
    return {
        "matches_per_s": n / seconds,
        "mappings_per_s": mappings / seconds,
        "ms_per_match": 1000 * seconds / n,
        "mappings_per_match": mappings / n,
    }


def time_python(
    pairs: list[tuple[dict, dict]], repeat: int, cold: bool = False
) -> dict[str, float]:
    """Best of ``repeat`` :func:`python_pass` es."""
    runs = [python_pass(pairs, cold) for _ in range(repeat)]
    seconds, mappings = min(runs)
    return _rates(len(pairs), seconds, mappings)


def _oracle_module(oracle: str):
    """The oracle script as a module (its Lisp driver and helpers)."""
    loader = importlib.machinery.SourceFileLoader("sme4_oracle", oracle)
    spec = importlib.util.spec_from_loader("sme4_oracle", loader)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    loader.exec_module(module)
    return module


SME_STEPPER = """
(in-package :sme4-oracle)
(let* ((*read-eval* nil)
       (*package* (find-package :sme-data))
       (forms (with-open-file (in PAIRS) (loop for f = (read in nil :eof) until (eq f :eof)
                                            collect f)))
       (vocab (make-vocabulary (first (first forms)) (second (first forms)))))
  (format t "~%SME-READY~%")
  (finish-output)
  (loop for line = (read-line *standard-input* nil nil)
        while (and line (string= line "pass"))
        do (let ((start (get-internal-run-time)))
             (dolist (form (rest forms))
               (let ((r (run-pair form vocab)))
                 (unless (equal (first r) "form") (error "SME failed: ~A" (second r)))))
             (format t "~%SME-PASS ~F~%" (/ (- (get-internal-run-time) start)
                                            (float internal-time-units-per-second 1d0)))
             (finish-output))))
"""


def time_alternating(
    oracle: str, pairs: list[tuple[dict, dict]], passes: int, cold: bool = False
) -> dict[str, Any]:
    """Both engines on the same pairs, pass by pass in turn (analogist, SME v4, analogist,
    ...), SME in one sbcl process that waits for each pass, so that the two see the same
    machine load. Each engine's rate is its best pass; ``ratio`` is the ratio of the two
    best passes, ``pass_ratios`` the ratios of the passes run side by side."""
    orc = _oracle_module(oracle)
    specs = orc.predicate_specs({k: v.to_json() for k, v in PREDICATES.items()})
    lines = [orc.lisp(["bench", specs])]
    for i, (b, t) in enumerate(pairs):
        desc = [[d["name"], d["entities"], d["facts"]] for d in (b, t)]
        lines.append(
            f"({i} {orc.lisp(f'p{i}')} {orc.param_bindings({})} "
            f"{orc.lisp(desc[0])} {orc.lisp(desc[1])})"
        )
    ours: list[tuple[float, int]] = []
    theirs: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "pairs.lisp"
        path.write_text("\n".join(lines) + "\n")
        driver = Path(tmp) / "driver.lisp"
        driver.write_text(orc.DRIVER + "\n" + SME_STEPPER.replace("PAIRS", orc.lisp(str(path))))
        proc = subprocess.Popen(
            [
                orc.find_sbcl(),
                "--noinform",
                "--non-interactive",
                "--no-sysinit",
                "--no-userinit",
                "--load",
                str(Path(orc.HERE) / "load.lisp"),
                "--load",
                str(driver),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        seen: list[str] = []

        def expect(tag: str) -> str:
            for line in proc.stdout:  # type: ignore[union-attr]
                seen.append(line)
                if line.startswith(tag):
                    return line[len(tag) :].strip()
            proc.wait()
            sys.exit(f"SME v4 stopped before {tag.strip()}: {''.join(seen)[-800:]}")

        try:
            expect("SME-READY")
            for _ in range(passes):
                ours.append(python_pass(pairs, cold))
                proc.stdin.write("pass\n")
                proc.stdin.flush()
                theirs.append(float(expect("SME-PASS ").replace("d", "e")))
        finally:
            proc.stdin.close()
            proc.wait()
    n = len(pairs)
    best_ours = min(ours)
    best_sme = min(theirs)
    sme = {
        "matches_per_s": n / best_sme,
        "ms_per_match": 1000 * best_sme / n,
        "mappings_per_s": best_ours[1] / best_sme,
    }
    ratios = [s / o for (o, _), s in zip(ours, theirs)]
    return {
        "pairs": n,
        "analogist": _rates(n, *best_ours),
        "sme4": sme,
        "ratio": best_sme / best_ours[0],
        "pass_ratios": ratios,
        "pass_ratio_median": statistics.median(ratios),
    }


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def huge_child(n_relations: int, budget: int) -> None:
    """Self-map of an ``n_relations`` description; prints time, peak RSS and the outcome."""
    rng = random.Random(11)
    ents = [f"e{i}" for i in range(max(10, n_relations // 8))]
    facts = random_facts(rng, ents, n_relations)
    d = Description("huge", tuple(Entity(e) for e in ents), tuple(facts), PREDICATES)
    started = time.process_time()
    try:
        r = match(d, d, mh_budget=budget)
        outcome = f"{r.mapping_count} mappings, {r.mh_count:,} match hypotheses"
    except MappingError as e:
        outcome = f"MappingError: {e}"
    print(
        json.dumps(
            {
                "seconds": time.process_time() - started,
                "outcome": outcome,
                "peak_rss_mb": _peak_rss_mb(),
            }
        )
    )


def huge(n_relations: int, budget: int) -> dict[str, object]:
    """:func:`huge_child` in a fresh process (so its peak memory is its own)."""
    proc = subprocess.run(
        [sys.executable, __file__, "--huge-child", str(n_relations), "--budget", str(budget)],
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        return {"relations": n_relations, "outcome": f"crashed: {proc.stderr.strip()[-300:]}"}
    return {"relations": n_relations, **json.loads(proc.stdout)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pairs", type=int, default=400, help="pairs at 5-15 (fewer at 30, 80)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per size")
    parser.add_argument(
        "--compare-sme",
        metavar="ORACLE",
        nargs="?",
        const=str(
            Path(__file__).resolve().parents[2]
            / "shared"
            / "reference"
            / "sme4-oracle"
            / "sme4-oracle"
        ),
        help="path to sme4-oracle (default: ../shared/reference/sme4-oracle)",
    )
    parser.add_argument("--huge", action="store_true", help="1,600 and 10,000-relation self-maps")
    parser.add_argument(
        "--cold", action="store_true", help="empty the rounding memo before every analogist pass"
    )
    parser.add_argument("--budget", type=int, default=DEFAULT_MH_BUDGET)
    parser.add_argument("--huge-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.huge_child:
        huge_child(args.huge_child, args.budget)
        return
    results: dict[str, Any] = {
        "core": {"compiled": compiled.status().compiled, "describe": compiled.status().describe()},
        "load_before": list(os.getloadavg()),
    }
    for label, low, high in SIZES:
        n = max(20, args.pairs // (1 if high <= 15 else 4 if high <= 30 else 16))
        pairs = batch(args.seed, low, high, n)
        if not args.compare_sme:
            results[label] = {"pairs": n, "analogist": time_python(pairs, args.repeat, args.cold)}
            continue
        results[label] = time_alternating(args.compare_sme, pairs, args.repeat, args.cold)
    results["load_after"] = list(os.getloadavg())
    if args.huge:
        results["huge"] = {str(n): huge(n, args.budget) for n in (1600, 10000)}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(compiled.status().describe())
    print(
        f"structure mapping, one core, seed {args.seed}, fresh descriptions per pair"
        f"{' and a cold rounding memo per pass' if args.cold else ''}; load "
        f"average {results['load_before'][0]:.1f} before, {results['load_after'][0]:.1f} after"
    )
    head = f"{'relations':>10} {'pairs':>6} {'ms/match':>9} {'matches/s':>10} {'mappings/s':>11}"
    if args.compare_sme:
        head += (
            f" {'SME v4/s':>9} {'SME maps/s':>11} {'ratio':>6}  "
            f"(best pass / best pass; side-by-side passes: median, range)"
        )
    print(head)
    for label, _, _ in SIZES:
        r = results[label]
        a = r["analogist"]
        line = (
            f"{label:>10} {r['pairs']:>6} {a['ms_per_match']:>9.3f} "
            f"{a['matches_per_s']:>10.0f} {a['mappings_per_s']:>11.0f}"
        )
        if args.compare_sme:
            s = r["sme4"]
            pr = r["pass_ratios"]
            line += (
                f" {s['matches_per_s']:>9.0f} {s['mappings_per_s']:>11.0f} "
                f"{r['ratio']:>5.2f}x  ({r['pass_ratio_median']:.2f}, "
                f"{min(pr):.2f}-{max(pr):.2f})"
            )
        print(line)
    if args.huge:
        print(f"huge self-maps (match-hypothesis budget {args.budget:,}):")
        for n, h in results["huge"].items():
            print(
                f"  {n:>6} relations: {h.get('seconds', float('nan')):.1f} s CPU, peak "
                f"{h.get('peak_rss_mb', float('nan')):.0f} MB, {h['outcome']}"
            )


if __name__ == "__main__":
    main()
