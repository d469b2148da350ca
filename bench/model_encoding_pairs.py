"""ORACLE diagnostic: does the model's likelihood rank an episode's gold facts above the others?

With the episode's parts given (``bench/reference/oracle_roles.json``: hand-picked, in the gold
roles' order), every statement "In this episode, A <definition of a term, with B>." is scored
for every ordered pair of roles and every non-causal binary term, after the episode and after
``Episode: N/A`` (staged-v10's prompts). The statements are ranked four ways — raw
log-probability, PMI (episode minus N/A), and each centred on its mean over the terms of the same
(A, B) pair (which removes how likely the two names are) — and the ranks of the gold facts are
printed (a commutative term counts in either order). No selection rule is involved: this asks
whether the signal an encoder would need is in the scores at all. Gold information is used only
to print the ranks.

    .venv/bin/python bench/model_encoding_pairs.py --model local --db /tmp/pairs.db --index 0,5,1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

from model_encoding import MEMORY, sample

from analogist.encode import steps as S
from analogist.encode.evaluate import load_gold_episodes
from analogist.encode.scored import NULL_HEAD, binary_terms, messages, tail
from analogist.models import open_llm
from analogist.store import Store

ORACLE = Path(__file__).resolve().parent / "reference/oracle_roles.json"
PROMPT_VERSION = "probe-pairs"
WAYS = ("raw", "pmi", "raw, centred per pair", "pmi, centred per pair")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="local")
    ap.add_argument("--db", required=True, help="SQLite file for the call log (reruns are free)")
    ap.add_argument("--roles", default=str(ORACLE))
    ap.add_argument(
        "--index", default="0", help="comma-separated positions in the 6-episode sample"
    )
    a = ap.parse_args(argv)
    store = Store(a.db)
    llm = open_llm(a.model, store=store, cache="read-write")
    vocab = store.vocabulary
    terms = binary_terms(vocab)
    oracle = json.loads(Path(a.roles).read_text())
    eps = sample(load_gold_episodes(MEMORY, vocab), 6)

    def canon(k: tuple[str, str, str]) -> tuple[str, ...]:
        term = vocab.resolve(k[0])
        return (k[0], *sorted(k[1:])) if term is not None and term.commutative else k

    for i in (int(x) for x in a.index.split(",")):
        ep = eps[i]
        assert ep.signature is not None
        t0 = time.monotonic()
        names, ents = [r.name for r in ep.signature.roles], oracle[ep.id]
        head = S.episode_head(ep.text, ep.kind, ep.outcome, target=False)
        rows: list[tuple[tuple[str, str, str], float, float]] = []
        for role, ent in zip(names, ents):
            keys = [(t, role, b) for b in names if b != role for t, _ in terms]
            conts = [tail(d, ent, eb) for b, eb in zip(names, ents) if b != role for _, d in terms]
            got = llm.score(messages(head, ent), conts, prompt_version=PROMPT_VERSION)
            null = llm.score(messages(NULL_HEAD, ent), conts, prompt_version=PROMPT_VERSION)
            rows += [
                (k, x.logprob, x.logprob - y.logprob)
                for k, x, y in zip(keys, got.scores, null.scores)
            ]
        per_pair: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
        for k, raw, pmi in rows:
            per_pair[k[1:]].append((raw, pmi))
        mean = {p: [sum(v) / len(v) for v in zip(*vals)] for p, vals in per_pair.items()}
        scored = [
            (k, (raw, pmi, raw - mean[k[1:]][0], pmi - mean[k[1:]][1])) for k, raw, pmi in rows
        ]
        gold = {canon((r.predicate, r.args[0], r.args[1])) for r in ep.signature.relations}
        print(
            f"{ep.id}: {len(rows)} statements, {time.monotonic() - t0:.0f} s; gold "
            + ", ".join(f"{g[0]}({','.join(g[1:])})" for g in sorted(gold))
        )
        for w, way in enumerate(WAYS):
            ranked = sorted(scored, key=lambda r: -r[1][w])
            pos = [n for n, (k, _) in enumerate(ranked, 1) if canon(k) in gold]
            top = ", ".join(f"{k[0]}({k[1]},{k[2]}) {v[w]:+.1f}" for k, v in ranked[:3])
            print(f"  {way}: gold at ranks {pos} of {len(rows)} (top: {top})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
