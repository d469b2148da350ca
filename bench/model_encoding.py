"""Encoder fidelity on the example memory, per step, with what the model actually wrote.

Encodes a sample of the example memory's episodes with the staged encoder (each from its own
record; the gold signature is removed first), scores each against its gold signature and prints
micro P / R / F1 per step, role alignment accuracy, rejections, and the calls, tokens and seconds
the encoding took (from the call log; a call answered from the cache costs nothing). ``--show``
prints each episode's written roles and relations next to the gold ones, to see what loses F1.

The sample is one episode per gold relation shape (so each mechanism of the memory is tried
once before any is tried twice), in file order:

    .venv/bin/python bench/model_encoding.py --model local --db /tmp/enc.db --sample 8 --show
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from analogist.encode.evaluate import load_gold_episodes, process_summary
from analogist.encode.fidelity import rejected, score_signature, summarise
from analogist.encode.staged import StagedEncoder
from analogist.encode.steps import PROMPT_VERSIONS, STAGED_PROMPT_VERSION
from analogist.episode import Episode
from analogist.models import open_llm
from analogist.signature.model import Signature
from analogist.store import Store

MEMORY = Path(__file__).resolve().parents[1] / "src/analogist/data/example_memory.jsonl"


def sample(episodes: list[Episode], n: int) -> list[Episode]:
    """One episode per gold relation shape first (file order), then the rest, up to ``n``."""
    first: list[Episode] = []
    rest: list[Episode] = []
    shapes: set[tuple[str, ...]] = set()
    for ep in episodes:
        assert ep.signature is not None
        shape = tuple(sorted(r.predicate for r in ep.signature.relations))
        (rest if shape in shapes else first).append(ep)
        shapes.add(shape)
    return (first + rest)[:n]


def _facts(sig: Signature) -> str:
    return "; ".join(f"{r.predicate}({','.join(r.args)})" for r in sig.relations)


def _given_roles(st, oracle: dict[str, list[str]]) -> bool:
    """The --roles diagnostic: the episode's roles from the file, named R1, R2, ..."""
    from analogist.encode.staged import StepTrace

    ents = oracle.get(st.eid, [])
    st.entities += ents
    st.parts += ["part named by the oracle file"] * len(ents)
    st.names += [f"R{i}" for i in range(1, len(ents) + 1)]
    ok = len(ents) >= 2
    st.trace.append(StepTrace("roles", ok, () if ok else ("no oracle roles for it",), calls=0))
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="local")
    ap.add_argument("--db", required=True, help="SQLite file for the call log (reruns are free)")
    ap.add_argument("--file", default=str(MEMORY))
    ap.add_argument("--sample", type=int, default=8)
    ap.add_argument("--ids", help="comma-separated episode ids instead of --sample")
    ap.add_argument("--show", action="store_true", help="print written vs gold per episode")
    ap.add_argument("--json", help="write the full report to this file")
    ap.add_argument(
        "--version",
        default=STAGED_PROMPT_VERSION,
        choices=PROMPT_VERSIONS,
        help="the staged encoder's prompt version",
    )
    ap.add_argument(
        "--relations-only",
        action="store_true",
        help="run only the roles and relations steps (relation F1 depends on no "
        "other step; halves the calls on a busy machine)",
    )
    ap.add_argument(
        "--roles",
        help="ORACLE diagnostic: a JSON file {episode id: [entity, ...]} whose entities replace "
        "the roles step (e.g. bench/reference/oracle_roles.json), to measure the relations "
        "step alone; the output says so",
    )
    a = ap.parse_args(argv)

    store = Store(a.db)
    llm = open_llm(a.model, store=store, cache="read-write")
    enc = StagedEncoder(llm, store.vocabulary, version=a.version)
    if a.relations_only:  # the chain and levels steps do nothing: no chain, no levels, no fix
        enc._chain = lambda st: None  # type: ignore[method-assign]
        enc._levels = lambda st, seen: None  # type: ignore[method-assign]
    if a.roles:
        oracle = {k: v for k, v in json.loads(Path(a.roles).read_text()).items() if k[0] != "_"}
        enc._roles = lambda st, seen, table: _given_roles(st, oracle)  # type: ignore[method-assign]
        print(f"ORACLE roles from {a.roles} (the roles step is not run)", file=sys.stderr)
    eps = load_gold_episodes(a.file, store.vocabulary)
    if a.ids:
        want = a.ids.split(",")
        eps = [e for e in eps if e.id in want]
    else:
        eps = sample(eps, a.sample)
    scores, results = [], []
    t0 = time.monotonic()
    for ep in eps:
        gold = ep.signature
        assert gold is not None
        t = time.monotonic()
        res = enc.encode(replace(ep, signature=None))
        results.append(res)
        sc = (
            score_signature(res.signature, gold, store.vocabulary)
            if res.signature is not None
            else rejected(ep.id, gold, res.reason or "rejected")
        )
        scores.append(sc)
        print(
            f"{ep.id}: F1 {sc.f1:.2f} ({sc.matched}/{sc.written} written, {sc.gold} gold) "
            f"in {time.monotonic() - t:.0f}s",
            file=sys.stderr,
            flush=True,
        )
        if a.show:
            sig = res.signature
            if sig is None:
                print(f"  REJECTED: {res.reason}")
            else:
                bind = dict(sig.surface.extra).get("bindings") or {}
                print(
                    "  roles:   "
                    + "; ".join(
                        f"{r.name}={bind.get(r.name, '?')} ({r.description})" for r in sig.roles
                    )
                )
                print("  written: " + _facts(sig))
                print("  chain:   " + "; ".join(str(c) for c in sig.causal_chain))
            print("  gold:    " + _facts(gold) + "   roles " + ", ".join(gold.role_names))
            print("  align:   " + ", ".join(f"{w}->{g}" for w, g in sc.alignment))
            for t_ in res.steps:
                for note in t_.notes:
                    print(f"  {t_.step}: {note}")
                if t_.problems or t_.dropped:
                    print(f"  {t_.step}: problems {list(t_.problems)} dropped {list(t_.dropped)}")
    rep = summarise(scores, enc.writer)
    s = rep.summary
    wall = time.monotonic() - t0
    st = llm.stats
    print(
        f"\nwriter {enc.writer}; {s['n']} episodes, rejected {s['rejected']}; "
        f"live calls {st.calls} (cache hits {st.cache_hits}), tokens in {st.input_tokens} "
        f"out {st.output_tokens}, {wall:.0f} s wall"
    )
    print(
        f"relations micro P/R/F1 {s['micro_precision']:.2f} / {s['micro_recall']:.2f} / "
        f"{s['micro_f1']:.2f}; macro F1 {s['macro_f1']:.2f}; role accuracy "
        f"{s['role_accuracy']:.2f}"
    )
    for name, d in s["steps"].items():
        print(
            f"  {name:<13} P {d['precision']:.2f}  R {d['recall']:.2f}  F1 {d['f1']:.2f}  "
            f"({d['matched']}/{d['written']}/{d['gold']})"
        )
    proc = process_summary(results)
    print("process: " + json.dumps({k: proc[k] for k in ("rejected", "repaired", "rejected_at")}))
    if a.json:
        Path(a.json).write_text(
            json.dumps(
                {**rep.to_json(), "process": proc, "wall_s": wall, "stats": st.to_json()}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
