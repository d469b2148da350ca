"""The shortcut audit: can anything but structure solve this benchmark? (spec §16.2, §25)

Run by :func:`~analogist.bench.generation.generate.generate_bench` and stored in the manifest. Baselines:

- **surface** (must not beat chance): word-set overlap and
  :class:`~analogist.models.embedding.HashingEmbedder` cosine between L0 texts choose the F2
  candidate and rank F3/F7/F8 memories; role mappings are guessed from the word overlap of
  entity names' content words (the entities' surface attributes; word sets rather than hashed
  vectors, whose bucket collisions would add pseudo-signal), with the best one-to-one assignment. The same guess
  from the words of the sentences mentioning each entity is reported as ``context_words`` but
  not required to be at chance: those sentences state the entity's relations, so their shared
  words ("only", "never", "from") are the structure, expressed lexically;
- **cues** (must not beat chance): tell the true analogue from the decoy by text length or by its
  count of negations ("not", "no", "never", "nothing" ...), in whichever direction does better,
  over every (true analogue, decoy) pair in the bench (F2 candidates, memory decoys vs source),
  and tell F2's two candidates apart by the size of their stored signatures;
- **structure** (must be well above chance): the same choices made from gold signatures by
  :func:`~analogist.bench.analysis.structure.best_assignment` — proof the information is there for a system that
  reads structure.

"Chance" allows sampling noise: a baseline passes when it is at most chance plus
``max(0.1, 3·sqrt(p(1-p)/n))`` (three standard errors, so an honest bench fails by
chance about once in a thousand). F2's surface baselines must be at or below 0.5 exactly: the near
candidate always looks more similar, and it is the valid one in at most half the items.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import permutations
from typing import Any

import numpy as np

from analogist.bench.analysis.structure import best_assignment, collapse
from analogist.bench.generation.items import Item
from analogist.bench.generation.render import jaccard, negations
from analogist.models.embedding import HashingEmbedder

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_EMB = HashingEmbedder()


def _tol(p: float, n: int) -> float:
    return max(0.1, 3 * math.sqrt(p * (1 - p) / n)) if n else 1.0


def _mean(xs: list[float]) -> float:
    return round(sum(xs) / len(xs), 4) if xs else 0.0


@lru_cache(maxsize=8192)
def _vec(text: str) -> np.ndarray:
    return _EMB.embed([text])[0]


def _cos(a: str, b: str) -> float:
    return float(np.dot(_vec(a), _vec(b)))


def _pick(target: Any, cands: list[Any], score: Callable[[Any, Any], float]) -> Any:
    return max(cands, key=lambda c: (score(target, c), c["id"]))


def _f2(items: list[Item]) -> dict[str, Any]:
    rows = [it for it in items if it.family == "F2"]
    acc: dict[str, list[float]] = {k: [] for k in ("overlap", "cosine", "structure")}
    for it in rows:
        t, cands, gold = it.inputs["target"]["text"], it.inputs["candidates"], it.key["gold_source"]
        acc["overlap"].append(_pick(t, cands, lambda a, c: jaccard(a, c["text"]))["id"] == gold)
        acc["cosine"].append(_pick(t, cands, lambda a, c: _cos(a, c["text"]))["id"] == gold)
        sig = it.key["target_signature"]
        acc["structure"].append(
            _pick(sig, cands, lambda s, c: best_assignment(c["signature"], s).score)["id"] == gold
        )
    out: dict[str, Any] = {k: _mean([float(x) for x in v]) for k, v in acc.items()}
    out["n"] = len(rows)
    return out


def _pairs_with_family(items: list[Item]) -> list[tuple[dict, dict, str]]:
    out = []
    for it in items:
        if it.family == "F2":
            cands = {c["id"]: c for c in it.inputs["candidates"]}
            out.append((cands[it.key["gold_source"]], cands[it.key["decoy"]], it.family))
        elif "memory" in it.inputs and it.key.get("gold_source"):
            mem = {c["id"]: c for c in it.inputs["memory"]}
            for eid, label in it.key["memory_roles"].items():
                if label == "decoy_far":
                    out.append((mem[it.key["gold_source"]], mem[eid], it.family))
    return out


def _pairs(items: list[Item]) -> list[tuple[dict, dict]]:
    """(true analogue, decoy) episode pairs a system could be asked to tell apart: F2's two
    candidates, and each memory's far decoy against its true source (both ordinary skins, so a
    nonce skin's different length is not mistaken for a decoy style)."""
    return [(t, d) for t, d, _ in _pairs_with_family(items)]


def _cues(items: list[Item]) -> dict[str, Any]:
    """Accuracy of telling the true analogue from the decoy by length or negation count alone,
    in whichever direction does better (ties count half)."""
    pairs = [(t, d) for t, d in _pairs(items)]
    f2_pairs = [(t, d) for t, d, fam in _pairs_with_family(items) if fam == "F2"]

    def strength(feature: Callable[[dict], float], rows: list[tuple[dict, dict]]) -> float:
        if not rows:
            return 0.0
        wins = sum(
            1.0 if feature(t) < feature(d) else 0.5 if feature(t) == feature(d) else 0.0
            for t, d in rows
        )
        acc = wins / len(rows)
        return round(max(acc, 1 - acc), 4)

    def size(ep: dict) -> float:
        return len(ep["signature"]["relations"]) + len(ep["signature"]["causal_chain"])

    n = len(pairs)
    return {
        "n": n,
        "length": strength(lambda e: len(e["text"]), pairs),
        "negation": strength(lambda e: negations(e["text"]), pairs),
        "f2_signature_size": strength(size, f2_pairs),
        "f2_n": len(f2_pairs),
        "limit": round(0.5 + _tol(0.5, n), 4),
        "f2_limit": round(0.5 + _tol(0.5, len(f2_pairs)), 4),
    }


STOPWORDS = frozenset(
    {"the", "a", "an", "of", "on", "in", "at", "for", "to", "and", "by", "from", "with", "s"}
)


def _content(text: str) -> str:
    """A name's content words: what an entity looks like, without articles and particles."""
    return " ".join(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS)


def _contexts(text: str, names: Iterable[str]) -> dict[str, str]:
    sentences = _SENTENCE.split(text)
    return {n: " ".join([n] + [s for s in sentences if n.lower() in s.lower()]) for n in names}


def _assignment_accuracy(
    left: list[str], right: list[str], score: Callable[[str, str], float], key: dict[str, str]
) -> float:
    """Accuracy of the best one-to-one assignment, averaged over every assignment that ties for
    best (so a baseline with no signal scores exactly chance instead of a lucky draw)."""
    scores = {(a, b): score(a, b) for a in left for b in right}
    best, tied = -math.inf, []
    for perm in permutations(right, len(left)):
        total = round(sum(scores[a, b] for a, b in zip(left, perm)), 9)
        if total > best:
            best, tied = total, [perm]
        elif total == best:
            tied.append(perm)
    hits = [sum(b == key[a] for a, b in zip(left, perm)) / len(left) for perm in tied]
    return sum(hits) / len(hits)


def _role_row(it: Item) -> tuple[float, float, float, float]:
    """(surface, context-word, structure, chance) role-mapping accuracy for one item."""
    src, tgt, key = it.inputs["source"], it.inputs["target"], it.key["role_mapping"]
    # a source may name no entity for its roles (no bindings): name baselines then tie at chance
    bindings = dict((src["signature"].get("surface") or {}).get("bindings") or {})
    entities = tgt["entities"]
    roles = [r for r in sorted(key) if r in src["signature"]["roles"]]
    bindings = {r: bindings.get(r, "") for r in roles}
    ents = sorted(entities)
    s_ctx = _contexts(src["text"], [bindings[r] for r in roles])
    t_ctx = _contexts(tgt["text"], [entities[e] for e in ents])

    def by_name(r: str, e: str) -> float:
        return jaccard(_content(bindings[r]), _content(entities[e]))

    def by_context(r: str, e: str) -> float:
        return _cos(s_ctx[bindings[r]], t_ctx[entities[e]])

    aligned = best_assignment(src["signature"], it.key["target_signature"]).mapping
    by_role = {role: eid for eid, role in it.key["target_roles"].items()}
    structure = sum(by_role.get(aligned.get(r, ""), "") == key[r] for r in roles) / len(roles)
    return (
        _assignment_accuracy(roles, ents, by_name, key),
        _assignment_accuracy(roles, ents, by_context, key),
        structure,
        1 / len(ents),
    )


def _roles(items: list[Item]) -> dict[str, Any]:
    rows = [it for it in items if "source" in it.inputs and "role_mapping" in it.key]
    table = [_role_row(it) for it in rows]
    surface, context, structure, chance = (list(col) for col in zip(*table)) if table else ([],) * 4
    n_roles = sum(len(it.key["role_mapping"]) for it in rows)
    p = _mean(chance)
    return {
        "n": len(rows),
        "chance": p,
        "surface": _mean(surface),
        "context_words": _mean(context),
        "structure": _mean(structure),
        "surface_limit": round(p + _tol(p, n_roles), 4),
    }


def _recall(rows: list[Item], signature_of: Callable[[Item], Any]) -> dict[str, Any]:
    hits: dict[str, list[float]] = {"overlap": [], "cosine": [], "structure": []}
    for it in rows:
        t, mem, gold = it.inputs["target"]["text"], it.inputs["memory"], it.key["gold_source"]
        hits["overlap"].append(_pick(t, mem, lambda a, c: jaccard(a, c["text"]))["id"] == gold)
        hits["cosine"].append(_pick(t, mem, lambda a, c: _cos(a, c["text"]))["id"] == gold)
        sig = signature_of(it)
        hits["structure"].append(
            _pick(sig, mem, lambda s, c: best_assignment(c["signature"], s).score)["id"] == gold
        )
    p = _mean([1 / len(it.inputs["memory"]) for it in rows])
    out = {k: _mean([float(x) for x in v]) for k, v in hits.items()}
    out.update(n=len(rows), chance=p, surface_limit=round(p + _tol(p, len(rows)), 4))
    return out


def _collapsed(it: Item) -> Any:
    split = it.key["split"]
    roles = it.key["target_roles"]
    return collapse(it.key["target_signature"], roles[split["part"]], roles[split["between"][1]])


def _retrieval(items: list[Item]) -> dict[str, Any]:
    """Recall@1 from memory: F3/F7 on gold signatures; F8 as written and after re-abstraction."""
    found = [it for it in items if "memory" in it.inputs and it.key.get("gold_source")]
    plain = [it for it in found if it.family != "F8"]
    f8 = [it for it in found if it.family == "F8"]
    out = _recall(plain, lambda it: it.key["target_signature"])
    as_written = _recall(f8, lambda it: it.key["target_signature"])
    out["f8"] = {
        "n": len(f8),
        "overlap": as_written["overlap"],
        "cosine": as_written["cosine"],
        "structure_as_written": as_written["structure"],
        "structure_collapsed": _recall(f8, _collapsed)["structure"],
    }
    return out


def run_audit(items: list[Item]) -> dict[str, Any]:
    """Compute every baseline and whether each passes; ``passed`` is the conjunction."""
    f2, cues, roles, ret = _f2(items), _cues(items), _roles(items), _retrieval(items)
    checks = {
        "f2_surface_at_or_below_chance": f2["overlap"] <= 0.5 and f2["cosine"] <= 0.5,
        "decoy_cues_near_chance": cues["length"] <= cues["limit"]
        and cues["negation"] <= cues["limit"]
        and cues["f2_signature_size"] <= cues["f2_limit"],
        "f2_structure_well_above_chance": f2["n"] == 0 or f2["structure"] >= 0.9,
        "roles_surface_near_chance": roles["surface"] <= roles["surface_limit"],
        "roles_structure_well_above_chance": roles["n"] == 0 or roles["structure"] >= 0.9,
        "retrieval_surface_near_chance": max(ret["overlap"], ret["cosine"]) <= ret["surface_limit"],
        "retrieval_structure_well_above_chance": ret["n"] == 0 or ret["structure"] >= 0.9,
        "f8_surface_near_chance": max(ret["f8"]["overlap"], ret["f8"]["cosine"])
        <= ret["surface_limit"],
        "f8_collapsed_structure_well_above_chance": ret["f8"]["n"] == 0
        or ret["f8"]["structure_collapsed"] >= 0.9,
    }
    return {
        "f2_choice": f2,
        "decoy_cues": cues,
        "role_mapping": roles,
        "retrieval": ret,
        "checks": checks,
        "passed": all(checks.values()),
    }
