"""Private-history items (spec §16.3): benchmark items built from a user's own memory.

The user writes a labels file *before* running anything (format below; docs/private.md;
example: ``analogist/data/example_private_labels.json``). Each entry names a
stored target episode and either the stored episodes that are valid analogues of it
(a **true-match** target) or none (a **no-match** target)::

    {"format": "analogist-private-labels/1",
     "items": [
       {"target": "ep_a", "matches": ["ep_b", "ep_c"]},
       {"target": "ep_d", "matches": [], "withhold": ["ep_e"], "lookalikes": ["ep_f"]}
     ]}

- ``matches``: valid analogues (empty: no valid analogue is in the snapshot);
- ``withhold`` (optional): more episodes kept out of this item's snapshot, e.g. the analogues
  of a target that is to be tested as a no-match item;
- ``lookalikes`` (optional): stored episodes that look alike on the surface but are not
  analogues (key-side only: reported as ``memory_roles`` ``lookalike``).

Each entry becomes one F3-like retrieval item: ``inputs`` hold the target's text (its roles as
the entity table) and the memory snapshot — every stored episode except the target, the
withheld ones and everything deriving from them (provenance closure, spec §16.3) — and ``keys``
hold the gold source, the other keyed matches, the target's stored signature (the ``gold``
encoder's output: the user's own encoding, fix removed) and a ``recorded_fix`` check: the fix the
target's record says resolved it. The bench manifest records the sha256 of the labels file and
of the memory episodes used, so the keys are frozen with a hash like a generated bench's.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analogist.bench.generation.files import Bench, dumps, file_hashes, seal
from analogist.bench.generation.items import QUESTIONS, Item
from analogist.errors import BenchError
from analogist.retrieve.provenance import DerivativeIndex
from analogist.signature.terms import TermSyntaxError, parse_fix_operator
from analogist.store import Store

LABELS_FORMAT = "analogist-private-labels/1"
GENERATOR = "analogist private-history"
GENERATOR_VERSION = "1.0.0"
_ENTRY_FIELDS = {"target", "matches", "withhold", "lookalikes", "note"}


@dataclass(frozen=True)
class Label:
    """One labelled target: its valid analogues (none: a no-match target)."""

    target: str
    matches: tuple[str, ...]
    withhold: tuple[str, ...] = ()
    lookalikes: tuple[str, ...] = ()

    @property
    def true_match(self) -> bool:
        return bool(self.matches)


def parse_labels(text: str, where: str = "labels") -> tuple[Label, ...]:
    """Validate a labels file's text; one-line errors say what is wrong and how to fix it."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise BenchError(
            f"{where} is not JSON ({e.msg} at line {e.lineno}); see docs/private.md "
            "for the labels format"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != LABELS_FORMAT:
        raise BenchError(
            f'{where}: give a JSON object with "format": "{LABELS_FORMAT}" and "items"'
        )
    entries = doc.get("items")
    if not isinstance(entries, list) or not entries:
        raise BenchError(f'{where}: "items" must be a non-empty list of labelled targets')
    out, seen = [], set()
    for n, entry in enumerate(entries, start=1):
        at = f"{where} item {n}"
        if not isinstance(entry, dict):
            raise BenchError(f"{at}: each item is an object with target and matches")
        extra = sorted(set(entry) - _ENTRY_FIELDS)
        if extra:
            raise BenchError(
                f"{at}: unknown field {extra[0]!r}; fields are {sorted(_ENTRY_FIELDS)}"
            )
        target = entry.get("target")
        if not isinstance(target, str) or not target:
            raise BenchError(f'{at}: "target" must be a stored episode id')
        lists = {}
        for name in ("matches", "withhold", "lookalikes"):
            v = entry.get(name, [] if name != "matches" else None)
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                raise BenchError(
                    f'{at} ({target}): "{name}" must be a list of episode ids'
                    + (" ([] for a no-match target)" if name == "matches" else "")
                )
            if len(set(v)) != len(v):
                raise BenchError(f'{at} ({target}): "{name}" repeats an id')
            lists[name] = tuple(v)
        m, w, lk = lists["matches"], lists["withhold"], lists["lookalikes"]
        clash = ({target} & (set(m) | set(w) | set(lk))) or (set(m) & set(w)) or (set(m) & set(lk))
        if clash:
            raise BenchError(
                f"{at} ({target}): {min(clash)} is named twice (the target, "
                "a match, a withheld or a lookalike episode are all different)"
            )
        label = Label(target, m, w, lk)
        if (target, label.true_match) in seen:
            raise BenchError(f"{at}: target {target} is labelled twice the same way")
        seen.add((target, label.true_match))
        out.append(label)
    return tuple(out)


def _record(store: Store, eid: str) -> dict:
    return store.get_episode(eid).to_json()


def _recorded_fix(sig: Mapping[str, Any]) -> dict | None:
    """The target's recorded fix as an operator over its role names (None: it records none)."""
    text = sig.get("fix_operator")
    if not text:
        return None
    try:
        term = parse_fix_operator(text).term
    except TermSyntaxError:
        return None
    return {"operator": term.functor, "args": [str(a) for a in term.args]}


def _item(store: Store, label: Label, snapshot_ids: Sequence[str]) -> Item:
    tgt = store.get_episode(label.target)
    if tgt.signature is None:
        raise BenchError(
            f"target {label.target} has no signature; a private item needs the "
            "target's structural signature (add one, or drop the target)"
        )
    sig = tgt.signature.to_json()
    present = [m for m in label.matches if m in snapshot_ids]
    missing = [m for m in label.matches if m not in present]
    if missing:
        raise BenchError(
            f"target {label.target}: match {missing[0]} is not in its snapshot "
            "(it derives from the target or a withheld episode); remove it from "
            "matches"
        )
    roles = {r: r for r in sig["roles"]}
    target_sig = {**sig, "episode_id": "target"}
    target_sig.pop("fix_operator", None)
    fix = _recorded_fix(sig)
    gold = present[0] if present else None
    gold_domain = None
    if gold is not None:
        gsig = store.get_episode(gold).signature
        gold_domain = gsig.to_json().get("surface", {}).get("domain") if gsig else None
    domain = sig.get("surface", {}).get("domain")
    memory_roles = {
        eid: (
            "source"
            if eid == gold
            else "match"
            if eid in present
            else "lookalike"
            if eid in label.lookalikes
            else "other"
        )
        for eid in snapshot_ids
    }
    key: dict[str, Any] = {
        "family": "F3",
        "item_source": "private",
        "gold_source": gold,
        "keyed_matches": present[1:],
        "has_valid_source": gold is not None,
        "memory_roles": memory_roles,
        "far": gold is not None and gold_domain != domain,
        "nonce": False,
        "extra_mechanism": False,
        "target_variant": "true" if gold else "none",
        "target_signature": target_sig,
        "target_roles": roles,
        "private_target": label.target,
        "withheld": sorted(set(label.withhold)),
    }
    if fix is not None:
        key["fix"] = fix
        key["check"] = {"kind": "recorded_fix", "fix": fix}
    entities = {r: d for r, d in sig["roles"].items()}
    inputs = {
        "question": QUESTIONS["F3"],
        "target": {"text": tgt.text, "entities": entities},
        "memory": [_record(store, eid) for eid in snapshot_ids],
    }
    digest = hashlib.sha256(
        dumps([label.target, list(label.matches), sorted(label.withhold)]).encode()
    ).hexdigest()[:12]
    motif = f"private:{'match' if gold else 'no_match'}"
    return Item(f"pv_{digest}", "F3", "private", motif, inputs, key)


def build_private_bench(store: Store, labels: Sequence[Label], labels_text: str) -> Bench:
    """One item per label over ``store``'s episodes; the manifest freezes the labels and memory
    with their sha256.

    Raises:
        BenchError: a labelled id is not stored, or a match would not be in its snapshot.
    """
    ids = sorted(store.episode_ids())
    stored = set(ids)
    for lb in labels:
        for eid in (lb.target, *lb.matches, *lb.withhold, *lb.lookalikes):
            if eid not in stored:
                raise BenchError(
                    f"labels name {eid}, which is not in the memory; label only "
                    "stored episodes (`analogist list` shows ids)"
                )
    derived = DerivativeIndex(store.iter_provenance())
    items = []
    for lb in labels:
        gone = derived.closure({lb.target, *lb.withhold})
        items.append(_item(store, lb, [eid for eid in ids if eid not in gone]))
    memory_sha = hashlib.sha256(
        "".join(dumps(_record(store, eid)) + "\n" for eid in ids).encode()
    ).hexdigest()
    n_match = sum(1 for it in items if it.key["has_valid_source"])
    manifest = {
        "generator": GENERATOR,
        "generator_version": GENERATOR_VERSION,
        "split": "private",
        "size": "private",
        "seed": 0,
        "item_source": "private",
        "labels_sha256": hashlib.sha256(labels_text.encode("utf-8")).hexdigest(),
        "memory_sha256": memory_sha,
        "memory_episodes": len(ids),
        "counts": {
            "total": len(items),
            "true_match": n_match,
            "no_match": len(items) - n_match,
            "by_family": {"F3": len(items)},
        },
    }
    bench = Bench(tuple(items), manifest)
    return Bench(bench.items, seal(manifest, file_hashes(bench)))


def combine(private: Bench, other: Bench) -> Bench:
    """``other``'s items (e.g. a generated synthetic bench) followed by the private ones, in one
    sealed bench, so one run scores both halves of H4 (E − A1 on private and on synthetic)."""
    clash = {it.item_id for it in private.items} & {it.item_id for it in other.items}
    if clash:
        raise BenchError(f"item id {min(clash)} is in both benches; they cannot be combined")
    manifest = {
        **{
            k: v
            for k, v in other.manifest.items()
            if k not in ("files", "bench_id", "manifest_sha256")
        },
        "private": {
            k: private.manifest[k]
            for k in ("labels_sha256", "memory_sha256", "memory_episodes", "counts", "bench_id")
        },
        "combined_from": [other.manifest.get("bench_id"), private.manifest["bench_id"]],
    }
    bench = Bench(other.items + private.items, manifest)
    return Bench(bench.items, seal(manifest, file_hashes(bench)))


# the example labels over the bundled example memory ------------------------------------------
# "Related plans" of the example memory's notes: same structure as a twin group, prevention
# framing, not listed as twins. They are valid analogues of the group, and withheld with it.
EXAMPLE_RELATED_PLANS = {
    0: "ep_fin_close_plan_bank_rec",
    4: "ep_avi_plan_icing_hand_fly",
    11: "ep_med_plan_stepdown_alarms",
    16: "ep_ops_plan_cron_jitter",
}
EXAMPLE_STANDALONE = ("ep_sw_payment_retry_duplicate", "ep_eco_lake_internal_loading")


def example_labels(pairs: Mapping[str, Any]) -> dict:
    """Labels for the bundled example memory, from ``example_memory_pairs.json``.

    True matches: the first member of every twin group (and the second of groups of four or
    more) with the rest of its group (and its related plan) as matches. No matches: the two
    standalone episodes, and every lookalike pair's first member with its whole twin group
    withheld, so its surface lookalike stays in the snapshot as the trap.
    """
    groups = [list(g) for g in pairs["structural_twins"]]
    group_of = {eid: i for i, g in enumerate(groups) for eid in g}
    lookalikes: dict[str, list[str]] = {}
    for a, b in pairs["surface_lookalikes"]:
        lookalikes.setdefault(a, []).append(b)
        lookalikes.setdefault(b, []).append(a)

    def members(i: int) -> list[str]:
        plan = EXAMPLE_RELATED_PLANS.get(i)
        return groups[i] + ([plan] if plan else [])

    items = []
    for i, g in enumerate(groups):
        for target in g[: 2 if len(g) >= 4 else 1]:
            items.append(
                {
                    "target": target,
                    "matches": [x for x in members(i) if x != target],
                    "lookalikes": lookalikes.get(target, []),
                }
            )
    for target in EXAMPLE_STANDALONE:
        items.append({"target": target, "matches": [], "lookalikes": lookalikes.get(target, [])})
    for a, b in pairs["surface_lookalikes"]:
        if a in EXAMPLE_STANDALONE:
            continue
        i = group_of[a]
        items.append(
            {
                "target": a,
                "matches": [],
                "withhold": [x for x in members(i) if x != a],
                "lookalikes": [b],
                "note": "twin group withheld: the surface lookalike is the trap",
            }
        )
    return {
        "format": LABELS_FORMAT,
        "note": "Example labels for the bundled example memory (analogist demo), built from "
        "example_memory_pairs.json by analogist.bench.suites.private.example_labels.",
        "items": items,
    }
