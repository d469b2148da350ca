"""Encoder fidelity: how close model-written signatures are to gold ones.

Role names are arbitrary (a model may call the source ``ORIG`` where the gold says ``SRC``), so
each written signature is first aligned to its gold signature by the role bijection that
matches the most relations (exhaustive search over injections of the smaller role set into the
larger one; signatures have a handful of roles, so this is at most 8!/0! = 40,320 maps; larger
ones fall back to a greedy alignment). Then, per episode:

- relation precision / recall / F1 — written relations (in the one canonical spelling,
  ``signature.canonical.canonical_term``: vocabulary term, commutative arguments sorted, roles
  renamed by the alignment) matched against gold, as multisets;
- role alignment accuracy — the share of gold roles that the alignment pairs with a written
  role *and* that take part in at least one matched relation (a pairing backed by evidence).

Per step of the staged encoder (:attr:`EpisodeFidelity.steps`, matched / written / gold counts
under the same alignment): ``roles`` (written roles backed by a matched relation), ``relations``,
``causal_chain`` (links whose cause, link and effect all match after renaming roles) and ``fix``
(the fix operator's role arguments, as a set; operator names are free text and not compared).

:func:`summarise` gives micro-averaged P/R/F1 (pooled counts), macro means, and counts of
rejected encodings, which score zero. Metrics of an empty list are 0 with n = 0.

:func:`chance_floor` is what a writer scores for nothing: its signatures against *other*
episodes' gold. The best-bijection alignment plus a writer's habitual predicates (a small model
picks the first-listed relation definitions) match some gold facts whatever the text says, so a
fidelity is only read against this floor.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations

from analogist.signature.canonical import canonical_term
from analogist.signature.model import Signature
from analogist.signature.terms import Term, parse_term
from analogist.signature.vocabulary import Vocabulary, default_vocabulary

EXACT_LIMIT = 8
CHANCE_OTHERS = 20  # other episodes' gold per written signature in the chance floor


@dataclass(frozen=True)
class EpisodeFidelity:
    """Scores of one written signature against its gold signature."""

    episode_id: str
    matched: int
    written: int
    gold: int
    role_accuracy: float
    alignment: tuple[tuple[str, str], ...] = ()
    rejected: str | None = None
    steps: tuple[tuple[str, int, int, int], ...] = ()

    @property
    def precision(self) -> float:
        return self.matched / self.written if self.written else 0.0

    @property
    def recall(self) -> float:
        return self.matched / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        return _f1(self.precision, self.recall)

    def to_json(self) -> dict:
        return {
            "episode_id": self.episode_id,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "role_accuracy": self.role_accuracy,
            "matched": self.matched,
            "written": self.written,
            "gold": self.gold,
            "alignment": dict(self.alignment),
            "rejected": self.rejected,
            "steps": {
                name: {"matched": m, "written": w, "gold": g} for name, m, w, g in self.steps
            },
        }


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _facts(sig: Signature) -> list[Term]:
    return [r.term() for r in sig.relations]


def _spell(term: Term, vocab: Vocabulary, mapping: Mapping[str, str] | None) -> str:
    """The one canonical spelling (:func:`~analogist.signature.canonical.canonical_term`) with
    roles renamed by ``mapping``; a role the mapping leaves out becomes ``?role`` (matches
    nothing)."""
    if mapping is None:
        return canonical_term(term, vocab)
    return canonical_term(term, vocab, {a: mapping.get(a, f"?{a}") for a in term.roles()})


def _matches(
    written: Sequence[Term], gold: Counter, mapping: dict[str, str], vocab: Vocabulary
) -> Counter:
    return Counter(_spell(t, vocab, mapping) for t in written) & gold


def best_alignment(
    written: Signature, gold: Signature, vocab: Vocabulary | None = None
) -> tuple[dict[str, str], Counter]:
    """The written->gold role map that matches the most relations, and the matched facts
    (canonical spellings in gold roles).

    Ties go to the map that keeps the most role names equal, then to the first in sorted order.
    """
    vocab = vocab if vocab is not None else default_vocabulary()
    w_roles, g_roles = sorted(written.role_names), sorted(gold.role_names)
    w_facts = _facts(written)
    g_facts = Counter(_spell(t, vocab, None) for t in _facts(gold))
    if max(len(w_roles), len(g_roles)) > EXACT_LIMIT:
        return _greedy(w_roles, g_roles, w_facts, g_facts, vocab)
    best: tuple[int, int] = (-1, -1)
    best_map: dict[str, str] = {}
    best_hits: Counter = Counter()
    if len(w_roles) <= len(g_roles):
        candidates = (dict(zip(w_roles, p)) for p in permutations(g_roles, len(w_roles)))
    else:
        candidates = (
            {w: g for w, g in zip(p, g_roles)} for p in permutations(w_roles, len(g_roles))
        )
    for mapping in candidates:
        hits = _matches(w_facts, g_facts, mapping, vocab)
        score = (sum(hits.values()), sum(1 for w, g in mapping.items() if w == g))
        if score > best:
            best, best_map, best_hits = score, mapping, hits
    return best_map, best_hits


def _greedy(
    w_roles: list[str], g_roles: list[str], w_facts: list[Term], g_facts: Counter, vocab: Vocabulary
) -> tuple[dict[str, str], Counter]:
    mapping: dict[str, str] = {}
    for w in w_roles:
        free = [g for g in g_roles if g not in mapping.values()]
        if not free:
            break
        mapping[w] = max(
            free,
            key=lambda g: (
                sum(_matches(w_facts, g_facts, {**mapping, w: g}, vocab).values()),
                g == w,
            ),
        )
    return mapping, _matches(w_facts, g_facts, mapping, vocab)


def score_signature(
    written: Signature, gold: Signature, vocab: Vocabulary | None = None
) -> EpisodeFidelity:
    """Relation P/R/F1 and role alignment accuracy of one written signature."""
    vocab = vocab if vocab is not None else default_vocabulary()
    mapping, hits = best_alignment(written, gold, vocab)
    backed = {a for fact in hits for a in parse_term(fact).roles()}
    gold_roles = gold.role_names
    acc = (
        sum(1 for g in gold_roles if g in mapping.values() and g in backed) / len(gold_roles)
        if gold_roles
        else 0.0
    )
    roles_backed = sum(1 for w, g in mapping.items() if g in backed)
    w_links = Counter(_link_facts(written, mapping, vocab))
    g_links = Counter(_link_facts(gold, None, vocab))
    w_fix = set(_fix_roles(written, mapping))
    g_fix = set(_fix_roles(gold, None))
    steps = (
        ("roles", roles_backed, len(written.roles), len(gold_roles)),
        ("relations", sum(hits.values()), len(written.relations), len(gold.relations)),
        (
            "causal_chain",
            sum((w_links & g_links).values()),
            sum(w_links.values()),
            sum(g_links.values()),
        ),
        ("fix", len(w_fix & g_fix), len(w_fix), len(g_fix)),
    )
    return EpisodeFidelity(
        gold.episode_id,
        sum(hits.values()),
        len(written.relations),
        len(gold.relations),
        acc,
        tuple(sorted(mapping.items())),
        steps=steps,
    )


def _link_facts(sig: Signature, mapping: dict[str, str] | None, vocab: Vocabulary) -> list[str]:
    return [
        f"{_spell(c.cause, vocab, mapping)} {c.link} {_spell(c.effect, vocab, mapping)}"
        for c in sig.causal_chain
    ]


def _fix_roles(sig: Signature, mapping: dict[str, str] | None) -> list[str]:
    if sig.fix_operator is None:
        return []
    return [
        a if mapping is None else mapping.get(a, f"?{a}") for a in sig.fix_operator.term.roles()
    ]


def rejected(episode_id: str, gold: Signature, reason: str) -> EpisodeFidelity:
    """A failed encoding: nothing written, so precision, recall and role accuracy are 0."""
    g_links = len(gold.causal_chain)
    g_fix = len(set(_fix_roles(gold, None)))
    steps = (
        ("roles", 0, 0, len(gold.roles)),
        ("relations", 0, 0, len(gold.relations)),
        ("causal_chain", 0, 0, g_links),
        ("fix", 0, 0, g_fix),
    )
    return EpisodeFidelity(episode_id, 0, 0, len(gold.relations), 0.0, (), reason, steps)


@dataclass(frozen=True)
class FidelityReport:
    """Per-episode scores with micro and macro summaries."""

    episodes: tuple[EpisodeFidelity, ...] = ()
    writer: str = ""
    summary: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "writer": self.writer,
            "summary": self.summary,
            "episodes": [e.to_json() for e in self.episodes],
        }


def summarise(scores: Iterable[EpisodeFidelity], writer: str = "") -> FidelityReport:
    """Micro P/R/F1 over pooled counts, macro means over episodes, rejection count."""
    scores = tuple(scores)
    n = len(scores)
    matched = sum(s.matched for s in scores)
    written = sum(s.written for s in scores)
    gold = sum(s.gold for s in scores)
    p = matched / written if written else 0.0
    r = matched / gold if gold else 0.0

    def mean(xs: Iterable[float]) -> float:
        xs = list(xs)
        return sum(xs) / len(xs) if xs else 0.0

    summary = {
        "n": n,
        "rejected": sum(1 for s in scores if s.rejected),
        "micro_precision": p,
        "micro_recall": r,
        "micro_f1": _f1(p, r),
        "macro_precision": mean(s.precision for s in scores),
        "macro_recall": mean(s.recall for s in scores),
        "macro_f1": mean(s.f1 for s in scores),
        "role_accuracy": mean(s.role_accuracy for s in scores),
        "steps": _step_summary(scores),
    }
    return FidelityReport(scores, writer, summary)


def _step_summary(scores: Sequence[EpisodeFidelity]) -> dict[str, dict[str, float]]:
    """Micro P/R/F1 per step over pooled matched / written / gold counts."""
    pooled: dict[str, list[int]] = {}
    for s in scores:
        for name, m, w, g in s.steps:
            acc = pooled.setdefault(name, [0, 0, 0])
            acc[0], acc[1], acc[2] = acc[0] + m, acc[1] + w, acc[2] + g
    out = {}
    for name, (m, w, g) in pooled.items():
        p, r = (m / w if w else 0.0), (m / g if g else 0.0)
        out[name] = {
            "precision": p,
            "recall": r,
            "f1": _f1(p, r),
            "matched": m,
            "written": w,
            "gold": g,
        }
    return out


def chance_floor(
    pairs: Sequence[tuple[Signature | None, Signature]],
    vocab: Vocabulary | None = None,
    others: int = CHANCE_OTHERS,
) -> dict[str, float]:
    """The fidelity of the same written signatures against the wrong gold: each written
    signature of ``pairs`` (written, its gold) scored against up to ``others`` golds of the
    following pairs (cyclically) whose relations use another predicate set (another mechanism),
    pooled like :func:`summarise`: micro relation F1 and mean role accuracy, with the number of
    (written, other gold) pairs scored. Rejected encodings (written None) are left out.
    """
    vocab = vocab if vocab is not None else default_vocabulary()
    preds = [frozenset(r.predicate for r in g.relations) for _, g in pairs]
    matched = written = gold = 0
    accs: list[float] = []
    for i, (w, _) in enumerate(pairs):
        if w is None:
            continue
        picked = 0
        for k in range(1, len(pairs)):
            if picked == others:
                break
            j = (i + k) % len(pairs)
            if preds[j] == preds[i]:
                continue
            s = score_signature(w, pairs[j][1], vocab)
            matched, written, gold = matched + s.matched, written + s.written, gold + s.gold
            accs.append(s.role_accuracy)
            picked += 1
    p = matched / written if written else 0.0
    r = matched / gold if gold else 0.0
    return {
        "micro_f1": _f1(p, r),
        "role_accuracy": sum(accs) / len(accs) if accs else 0.0,
        "pairs": len(accs),
    }
