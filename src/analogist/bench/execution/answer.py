"""Answers: what a system under test says about one item, in one shape for both answerers.

An :class:`Answer` is built only from an item's *inputs* (and, for the labelled ``gold``
encoder, the target's gold signature); the runner scores it against the key afterwards
(:mod:`analogist.bench.analysis.score_answer`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from analogist.signature import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary


@dataclass(frozen=True)
class Answer:
    """One answer.

    Attributes:
        retrieved: candidate source ids, best first (what retrieval surfaced).
        claimed_source: the source the system says is analogous (None: no match).
        judged: offered candidate id -> accepted as a valid analogue (F2, F6).
        role_map: source role -> target entity id.
        decisions: inference id -> transfer (True) or withhold (False) (F5).
        action: (operator, target entity ids) the system would apply, or None.
        confidence: the system's probability that its analogy is valid.
        survived: whether the system's own verification kept the analogy (None: none ran).
        conclusion: the transferred conclusion, for the mapping-lesion test.
        tokens, calls, wall_ms: cost.
        run: the analogizer run (engine) or the model exchange summary (model).
    """

    retrieved: tuple[str, ...] = ()
    claimed_source: str | None = None
    judged: Mapping[str, bool] = field(default_factory=dict)
    role_map: Mapping[str, str] = field(default_factory=dict)
    decisions: Mapping[str, bool] = field(default_factory=dict)
    action: tuple[str, tuple[str, ...]] | None = None
    confidence: float | None = None
    survived: bool | None = None
    conclusion: str | None = None
    tokens: int = 0
    calls: int = 0
    wall_ms: float = 0.0
    run: Mapping[str, Any] | None = None

    def to_json(self) -> dict:
        d = asdict(self)
        d["action"] = None if self.action is None else [self.action[0], list(self.action[1])]
        return d


def rename_target(raw: Mapping[str, Any], roles: Mapping[str, str]) -> dict:
    """A gold target signature with its role names replaced by the target's entity ids.

    ``roles`` is the key's ``target_roles`` (entity id -> gold role). The result is what a
    perfect encoder of the target's text could write: structure over entity ids, each role
    described by its entity's name, the note's symptom sentence, invariant and L1-L3 written
    from the structure by the generator's one renderer, no fix (the system must find it), and
    no motif role name, motif symptom or invariant string anywhere.
    """
    from analogist.bench.generation.signatures import rename_roles

    to_eid = {role: eid for eid, role in roles.items()}
    sig = rename_roles({k: v for k, v in raw.items() if k != "fix_operator"}, to_eid)
    sig["surface"] = {
        **sig.get("surface", {}),
        "bindings": {e: sig["roles"][e] for e in sig["roles"]},
        "entities": sorted(sig["roles"].values()),
    }
    return sig


def target_signature(key: Mapping[str, Any], vocab: Vocabulary) -> Signature:
    """The ``gold`` encoder: the generator's signature of the target, labelled as such."""
    raw = rename_target(key["target_signature"], key["target_roles"])
    raw["writer_model"] = "gold:generator"
    return parse_signature(raw, vocab)


def shuffled(records: list[dict], seed: int) -> list[dict]:
    """C′'s placebo: every episode keeps its text but gets another episode's signature."""
    signed = [r for r in records if r.get("signature")]
    if len(signed) < 2:
        return records
    order = list(range(len(signed)))
    rng = random.Random(seed)
    while order == sorted(order):
        rng.shuffle(order)
    sigs = [signed[i]["signature"] for i in order]
    out, j = [], 0
    for r in records:
        if r.get("signature"):
            sig = dict(sigs[j])
            sig["episode_id"] = r["id"]
            sig["kind"] = r["kind"]
            sig["levels"] = {**sig.get("levels", {}), "L0": r["text"]}
            # the donor's surface would name entities of another episode's text: a tell
            sig["surface"] = (r.get("signature") or {}).get(
                "surface", {"domain": "", "entities": []}
            )
            out.append({**r, "signature": sig})
            j += 1
        else:
            out.append(r)
    return out
