"""Encoder noise: a seeded corruption model of the gold encoder's output (issue 11).

The engine arms read signatures written by the labelled ``gold`` encoder, i.e. perfect
encodings. A real encoder makes mistakes, and whether SME's partial matching and the causal gate
earn their place shows only when it does. :func:`corrupt` degrades one signature at rate ``r``:

- every relation, independently with probability ``r``, is **dropped**, **mislabelled** (another
  vocabulary predicate of the same arity) or has its **arguments swapped** (one of the three,
  uniformly; swap needs two arguments, else mislabel);
- every causal link, with probability ``r``, is dropped, gets another causal link kind, or has
  cause and effect swapped;
- for every relation, with probability ``r/2``, a spurious relation is **added** (a random
  predicate over random roles);
- with probability ``r/2`` two roles are **merged** (one name replaces the other everywhere) and
  with probability ``r/2`` a role is **split** (one of its relation arguments moves to a new role).

**Where it applies (decided):** the same encoder writes a target at query time and every
episode at storage time, so noise is applied to both, independently: the gold encoder's
target signature (over entity ids), and the signature of every stored episode an item shows (memory, candidates, given
sources). Text, outcomes, shown inferences and keys are never touched. The corruption of one
signature is seeded by (run seed, episode or item id, rate), so every arm sees the identical
corrupted item and arms stay paired; the same seed gives the same corruption.

Rates: :data:`RATES` = 0, 0.1, 0.2, 0.3. :data:`REALISTIC` is the rate the report singles out;
see ``docs/instrument.md`` for how it was chosen.
"""

from __future__ import annotations

import copy
import hashlib
import random
import re
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from analogist.bench.generation.items import Item
from analogist.bench.generation.simulate import vocabulary
from analogist.errors import BenchError
from analogist.signature import Signature, parse_signature, parse_term
from analogist.signature.terms import TermSyntaxError
from analogist.signature.vocabulary import Vocabulary

RATES = (0.0, 0.1, 0.2, 0.3)
REALISTIC = 0.2
NOISE_ARMS = ("ISO", "C", "D", "E")


@cache
def _predicates() -> dict[int, tuple[str, ...]]:
    out: dict[int, list[str]] = {}
    for t in vocabulary():
        if t.kind != "causal" and t.merged_into is None:
            out.setdefault(t.arity, []).append(t.term)
    return {k: tuple(sorted(v)) for k, v in out.items()}


@cache
def _links() -> tuple[str, ...]:
    return tuple(sorted(t.term for t in vocabulary().by_kind("causal")))


def _rng(seed_key: str, rate: float) -> random.Random:
    digest = hashlib.sha256(f"{seed_key}|{rate:.4f}".encode()).hexdigest()
    return random.Random(int(digest[:16], 16))


def _rename_term(text: str, names: Mapping[str, str]) -> str:
    try:
        return parse_term(text).rename(dict(names)).canonical()
    except TermSyntaxError:
        return text


def _rename_fix(fix: str, names: Mapping[str, str]) -> str:
    head, sep, rest = fix.partition(")")
    for old, new in names.items():
        head = re.sub(rf"\b{re.escape(old)}\b", new, head)
    return head + sep + rest


def _merge(sig: dict, rng: random.Random) -> None:
    roles = sorted(sig["roles"])
    if len(roles) < 2:
        return
    keep, gone = rng.sample(roles, 2)
    names = {gone: keep}
    sig["relations"] = [[r[0], *[names.get(a, a) for a in r[1:]]] for r in sig["relations"]]
    sig["causal_chain"] = [
        [_rename_term(c, names), k, _rename_term(e, names)]
        for c, k, e in sig.get("causal_chain", [])
    ]
    if sig.get("fix_operator"):
        sig["fix_operator"] = _rename_fix(sig["fix_operator"], names)
    del sig["roles"][gone]
    bindings = (sig.get("surface") or {}).get("bindings")
    if isinstance(bindings, dict):
        bindings.pop(gone, None)


def _split(sig: dict, rng: random.Random) -> None:
    uses = [(i, j) for i, r in enumerate(sig["relations"]) for j in range(1, len(r))]
    counts: dict[str, int] = {}
    for i, j in uses:
        counts[sig["relations"][i][j]] = counts.get(sig["relations"][i][j], 0) + 1
    movable = sorted(r for r, n in counts.items() if n >= 2 and r in sig["roles"])
    if not movable:
        return
    role = rng.choice(movable)
    new = f"{role}_b"
    while new in sig["roles"]:
        new += "b"
    i, j = rng.choice([(i, j) for i, j in uses if sig["relations"][i][j] == role])
    sig["relations"][i][j] = new
    sig["roles"][new] = copy.deepcopy(sig["roles"][role])


def corrupt(signature: Mapping[str, Any], rate: float, seed_key: str) -> dict[str, Any]:
    """A copy of ``signature`` corrupted at ``rate`` (0 returns an unchanged copy)."""
    sig = copy.deepcopy(dict(signature))
    if rate <= 0:
        return sig
    rng = _rng(seed_key, rate)
    preds = _predicates()
    rels = []
    for rel in sig.get("relations", []):
        rel = list(rel)
        if rng.random() < rate:
            op = rng.choice(("drop", "mislabel", "swap"))
            if op == "drop":
                continue
            if op == "swap" and len(rel) >= 3:
                rel[1], rel[2] = rel[2], rel[1]
            else:
                options = [p for p in preds.get(len(rel) - 1, ()) if p != rel[0]]
                if options:
                    rel[0] = rng.choice(options)
        rels.append(rel)
    roles = sorted(sig.get("roles", {}))
    for _ in range(len(sig.get("relations", []))):
        if rng.random() < rate / 2 and len(roles) >= 2 and preds.get(2):
            a, b = rng.sample(roles, 2)
            rels.append([rng.choice(preds[2]), a, b])
    sig["relations"] = rels
    chain = []
    for cause, link, effect in sig.get("causal_chain", []):
        if rng.random() < rate:
            op = rng.choice(("drop", "mislabel", "swap"))
            if op == "drop":
                continue
            if op == "swap":
                cause, effect = effect, cause
            else:
                link = rng.choice([k for k in _links() if k != link] or [link])
        chain.append([cause, link, effect])
    sig["causal_chain"] = chain
    if rng.random() < rate / 2:
        _merge(sig, rng)
    if rng.random() < rate / 2:
        _split(sig, rng)
    return sig


def _records(inputs: dict) -> list[dict]:
    out = list(inputs.get("memory", [])) + list(inputs.get("candidates", []))
    if inputs.get("source"):
        out.append(inputs["source"])
    return out


def noisy_item(item: Item, rate: float, seed: int) -> Item:
    """The item as a noisy encoder would have stored it: every shown episode's signature
    corrupted at ``rate`` (the key is untouched; the target is :func:`noisy_target`)."""
    if rate <= 0:
        return item
    inputs = copy.deepcopy(dict(item.inputs))
    for rec in _records(inputs):
        if rec.get("signature"):
            rec["signature"] = corrupt(rec["signature"], rate, f"{seed}|{rec['id']}")
    return Item(item.item_id, item.family, item.split, item.motif, inputs, item.key)


def noisy_target(item: Item, vocab: Vocabulary, rate: float, seed: int) -> Signature:
    """The gold encoder's target signature (over entity ids) corrupted at ``rate``."""
    from analogist.bench.execution.answer import rename_target

    raw = rename_target(item.key["target_signature"], item.key["target_roles"])
    raw = corrupt(raw, rate, f"{seed}|{item.item_id}|target")
    raw["writer_model"] = f"gold:generator+{noise_condition(rate)}"
    return parse_signature(raw, vocab)


def noise_condition(rate: float) -> str:
    """The stored condition label of a noise run, e.g. ``noise=0.1``."""
    return f"noise={rate:g}"


def parse_noise_condition(cond: str) -> float | None:
    """The rate of a ``noise=…`` condition label, or None for any other condition."""
    if not cond or not cond.startswith("noise="):
        return None
    return float(cond.split("=", 1)[1])


def parse_rates(text: str | None) -> tuple[float, ...]:
    """``"0.1,0.2,0.3"`` (or ``"none"``/empty) as the extra noise rates of a run."""
    if not text or text.strip().lower() in ("none", "0"):
        return ()
    out = []
    for part in text.split(","):
        try:
            rate = float(part)
        except ValueError:
            raise BenchError(f"--noise {text!r}: write rates like 0.1,0.2,0.3") from None
        if not 0 <= rate < 1:
            raise BenchError(f"--noise {text!r}: a rate must be in [0, 1), got {rate:g}")
        if rate > 0:
            out.append(round(rate, 4))
    return tuple(sorted(set(out)))


def fidelity_at(rate: float, items: Sequence[Item], vocab: Vocabulary, seed: int = 0) -> float:
    """Relation F1 (as ``analogist encode --eval`` scores an encoder) of this corruption model
    at ``rate``, over the stored episodes of ``items``: the bridge from a measured encoder
    fidelity to a noise rate (:func:`rate_for_fidelity`)."""
    from analogist.encode.fidelity import score_signature

    matched = written = gold = 0
    for it in items:
        for rec in _records(dict(it.inputs)):
            if not rec.get("signature"):
                continue
            g = parse_signature(rec["signature"], vocab)
            w = parse_signature(corrupt(rec["signature"], rate, f"{seed}|{rec['id']}"), vocab)
            f = score_signature(w, g, vocab)
            matched, written, gold = matched + f.matched, written + f.written, gold + f.gold
    if not written or not gold:
        return 0.0
    p, r = matched / written, matched / gold
    return 2 * p * r / (p + r) if p + r else 0.0


def rate_for_fidelity(relation_f1: float, table: Mapping[float, float]) -> float:
    """The rate of ``table`` (rate -> relation F1 from :func:`fidelity_at`) whose F1 is
    closest to a measured encoder's relation F1."""
    return min(table, key=lambda r: (abs(table[r] - relation_f1), r))
