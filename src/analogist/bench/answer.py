"""Answers: what a system under test says about one item, in one shape for both answerers.

An :class:`Answer` is built only from an item's *inputs* (and, for the labelled ``gold``
encoder, the target's gold signature); the runner scores it against the key afterwards
(:mod:`analogist.bench.scoring`).
"""

from __future__ import annotations

import json
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

    ``roles`` is the key's ``target_roles`` (entity id -> gold role); the result names no
    motif role, so role names carry nothing a system could exploit.
    """
    to_eid = {role: eid for eid, role in roles.items()}
    text = json.dumps(raw)
    sig = json.loads(text)
    sig["roles"] = {to_eid.get(r, r): v for r, v in sig["roles"].items()}
    sig["relations"] = [[rel[0], *[to_eid.get(a, a) for a in rel[1:]]] for rel in sig["relations"]]

    def term(t: str) -> str:
        from analogist.signature import parse_term

        return parse_term(t).rename(to_eid).canonical()

    sig["causal_chain"] = [[term(c), k, term(e)] for c, k, e in sig.get("causal_chain", [])]
    sig.pop("fix_operator", None)  # the target's own fix is what the system must find
    # Keep only L0 (the text the system sees): the generator's L1-L3 are motif templates whose
    # wording repeats across skins, so handing them over would turn S2 into a text-identity test.
    sig["levels"] = {"L0": sig["levels"]["L0"]}
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
            sig["surface"] = (r.get("signature") or {}).get("surface", {"domain": "", "entities": []})
            out.append({**r, "signature": sig})
            j += 1
        else:
            out.append(r)
    return out
