"""Scoring: an :class:`Answer` against its item's key, as a :class:`Score`.

This is the only place (with the oracle arm G and the labelled gold encoder) where key
information is read. A proposed action is executed in the item's target world
(:func:`analogist.bench.analysis.check.check_fix`) and compared with the no-action control.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analogist.bench.analysis.check import check_fix
from analogist.bench.analysis.score_record import Score, TransferPair
from analogist.bench.execution.answer import Answer
from analogist.bench.generation.items import Item


def _roles(answer: Answer, key: Mapping[str, Any]) -> tuple[int, int, int]:
    gold = dict(key.get("role_mapping") or {})
    ours = dict(answer.role_map)
    if not gold:
        return 0, len(ours), 0
    if answer.claimed_source is not None and answer.claimed_source != key.get("gold_source"):
        return 0, len(ours), len(gold)
    tp = sum(1 for s, t in ours.items() if gold.get(s) == t)
    return tp, len(ours) - tp, len(gold) - tp


def _offered(item: Item, answer: Answer) -> tuple[bool | None, bool | None]:
    """(offered_is_valid, accepted) for the item's offered candidate, if it has one.

    F6 offers one source. F2 offers two; the judged one is the near (same-skin) candidate, the
    surface trap: a decoy in the standard layout, a true analogue in the control layout.
    """
    key = item.key
    if item.family == "F6":
        sid = item.inputs["source"]["id"]
        return bool(key["offered_is_valid"]), bool(answer.judged.get(sid, False))
    if item.family == "F2":
        near = key["near"]
        return bool(key["valid"][near]), bool(answer.judged.get(near, False))
    return None, None


def score(
    item: Item,
    answer: Answer,
    *,
    arm: str,
    answerer: str,
    seed: int,
    condition: str | None = None,
    lesioned: bool = False,
    noise: float = 0.0,
) -> Score:
    """Score one answer (see :mod:`analogist.bench.analysis.score_record` for what each field means)."""
    key = item.key
    tp, fp, fn = _roles(answer, key)
    offered_valid, accepted = _offered(item, answer)
    pairs = tuple(
        TransferPair(answer.decisions.get(i, False), v == "transfer")
        for i, v in sorted((key.get("decisions") or {}).items())
    )
    outcome = None
    if answer.action is not None and key.get("check"):
        outcome = check_fix(key["check"], answer.action[0], answer.action[1]).result
    claimed = answer.claimed_source
    gold = key.get("gold_source")
    proposed = claimed is not None or bool(accepted)
    valid = None
    if claimed is not None:
        valid = claimed == gold
    elif accepted is not None:
        valid = offered_valid
    return Score(
        item_id=item.item_id,
        family=item.family,
        arm=arm,
        answerer=answerer,
        seed=seed,
        item_source=key.get("item_source", "synthetic"),
        far=bool(key.get("far")),
        nonce=bool(key.get("nonce")),
        has_valid_source=bool(key.get("has_valid_source")),
        gold_source=gold,
        keyed_matches=tuple(key.get("keyed_matches") or ()),
        retrieved=answer.retrieved,
        claimed_source=claimed,
        offered_is_valid=offered_valid,
        accepted=accepted,
        role_tp=tp,
        role_fp=fp,
        role_fn=fn,
        transfer_pairs=pairs,
        executable=bool(key.get("check")),
        applied_action=outcome is not None,
        outcome=outcome,
        survived_verification=answer.survived,
        proposed=proposed,
        confidence=answer.confidence if proposed else None,
        valid=valid if proposed else None,
        tokens=answer.tokens,
        calls=answer.calls,
        wall_ms=answer.wall_ms,
        condition=condition,
        lesioned=lesioned,
        conclusion=answer.conclusion,
        noise=noise,
    )
